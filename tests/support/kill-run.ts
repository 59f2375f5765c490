/**
 * Runs the built binary and kills it with SIGKILL mid-run: after a time, or after its journals
 * grew by some lines (by progress, not by time: the kill lands mid-run however loaded the machine
 * is). Shared by the kill-and-resume tests of bulk runs and of `catalog apply`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const bin = join(resolve(__dirname, '../..'), 'bin/subctl.js');

/** Journal lines written so far (every file of a state directory's journals). */
export function journalLines(dir: string): number {
  let n = 0;
  try {
    for (const f of readdirSync(dir)) for (const c of readFileSync(join(dir, f), 'utf8')) if (c === '\n') n++;
  } catch {
    // not created yet
  }
  return n;
}

/** The environment of a killed run: a home and config directory in `dir`, signed in to the sandbox at `url` with `token`. */
export function killEnv(dir: string, url: string, token: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, SUBCTL_CONFIG_DIR: join(dir, 'cfg'), SUBCTL_BASE_URL: url, SUBCTL_TOKEN: token };
}

export type Kill = { afterMs: number } | { afterEvents: number; journalDir: string };

export function runKilled(
  args: string[],
  env: NodeJS.ProcessEnv,
  kill?: Kill,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let timer: NodeJS.Timeout | undefined;
    if (kill && 'afterMs' in kill) timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
    else if (kill) {
      const start = journalLines(kill.journalDir);
      timer = setInterval(() => {
        if (journalLines(kill.journalDir) - start >= kill.afterEvents) child.kill('SIGKILL');
      }, 2);
    }
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearInterval(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}
