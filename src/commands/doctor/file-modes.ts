/**
 * The config-files check: the modes and owner of the config directory and its files. Loading
 * the configuration repairs loose modes, so the modes are read before every other check and
 * compared after.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Ctx } from '../../cli/context.js';
import type { Check, DoctorRun, ModeSnapshot } from './types.js';

function snapshotModes(ctx: Ctx): ModeSnapshot[] {
  const p = ctx.paths();
  const list: ModeSnapshot[] = [
    { path: p.configDir, want: 0o700 },
    { path: p.configFile, want: 0o600 },
    { path: p.credentialsFile, want: 0o600 },
  ];
  for (const s of list) {
    try {
      const st = statSync(s.path);
      s.mode = st.mode & 0o777;
      s.uid = st.uid;
    } catch {
      /* missing */
    }
  }
  return list;
}

const octal = (m: number) => m.toString(8).padStart(4, '0');

function fileModesCheck(before: ModeSnapshot[], after: ModeSnapshot[]): Check {
  if (process.platform === 'win32') return { check: 'config-files', status: 'ok', detail: 'file modes do not apply on Windows', fix: null };
  const problems: string[] = [];
  const fixes: string[] = [];
  const present: string[] = [];
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  before.forEach((b, i) => {
    if (b.mode === undefined) return;
    const now = after[i].mode;
    present.push(`${i === 0 ? 'directory' : basename(b.path)} ${octal(b.mode)}`);
    if ((b.mode & 0o077) !== 0) {
      problems.push(
        now === b.want
          ? `${b.path} was ${octal(b.mode)} (repaired to ${octal(b.want)} by this run)`
          : `${b.path} is ${octal(now ?? b.mode)}, open to other users`,
      );
      fixes.push(now === b.want ? `find what loosened ${b.path} (a sync or backup tool?)` : `chmod ${b.want.toString(8)} ${b.path}`);
    }
    if (uid !== undefined && b.uid !== undefined && b.uid !== uid) {
      problems.push(`${b.path} belongs to uid ${b.uid}, not to you (${uid})`);
      fixes.push(`chown $(id -u) ${b.path}, or point SUBCTL_CONFIG_DIR at a directory you own`);
    }
  });
  if (present.length === 0) return { check: 'config-files', status: 'ok', detail: `no configuration yet (${before[0].path})`, fix: null };
  if (problems.length) return { check: 'config-files', status: 'warn', detail: problems.join('; '), fix: fixes.join('; ') };
  return { check: 'config-files', status: 'ok', detail: `private: ${present.join(', ')} (${before[0].path})`, fix: null };
}

/** Reads the modes before any other check loads (and so repairs) the configuration. */
export function snapshotModesFirst(s: DoctorRun): void {
  try {
    s.modesBefore = snapshotModes(s.ctx);
  } catch {
    s.modesBefore = undefined;
  }
}

export function checkFileModes(s: DoctorRun): void {
  const { ctx, add, checks, modesBefore } = s;
  if (modesBefore) {
    try {
      checks.push(fileModesCheck(modesBefore, snapshotModes(ctx)));
    } catch (e) {
      add('config-files', 'warn', `could not inspect: ${(e as Error).message}`, 'check the permissions of the config directory');
    }
  }
}
