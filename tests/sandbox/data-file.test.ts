/**
 * The sandbox's data file, as a user names it (`--data`) or as subctl keeps it (the embedded
 * default): a file that cannot be a sandbox's is never written into or deleted (a CSV named by
 * mistake, another program's SQLite database), a missing directory or a directory is named, and
 * a damaged file is said to be damaged with the way out. The real binary.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openKept } from '../../src/sandbox/keep.js';
import { describe, expect, it } from 'vitest';
import { run } from '../chaos/binary.js';
import { tempDir } from '../support/tmp.js';

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const env = () => ({ PATH: process.env.PATH, HOME: tempDir('subctl-home-'), SUBCTL_CONFIG_DIR: tempDir('subctl-cfg-') });
const lastJson = (stderr: string) =>
  JSON.parse(stderr.trim().split('\n').pop()!) as { error: { type: string; code: string | null; message: string; hint?: string } };

/** Files that are not a sandbox's, each as a user might name one by mistake. */
function strangers(dir: string): Record<string, string> {
  const csv = join(dir, 'actions.csv');
  writeFileSync(csv, 'subscription_id,action\n42,extend\n');
  const app = join(dir, 'app.db');
  const db = openKept(app);
  db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Zoë')");
  db.close();
  // Rails keeps a schema_migrations table too, with a `version` column.
  const rails = join(dir, 'rails.db');
  const r = openKept(rails);
  r.exec(
    "CREATE TABLE schema_migrations (version TEXT PRIMARY KEY); INSERT INTO schema_migrations VALUES ('20240101'); CREATE TABLE users (id INTEGER)",
  );
  r.close();
  return { csv, app, rails };
}

describe('--data names a file that cannot be a sandbox data file: exit 2, named, nothing written or deleted', () => {
  it.each(['serve', 'reset'])('sandbox %s', async (verb) => {
    const dir = tempDir('subctl-data-');
    const extra = verb === 'serve' ? ['--port', '0'] : ['--yes'];
    for (const [kind, file] of Object.entries(strangers(dir))) {
      const before = sha(file);
      const r = await run(['sandbox', verb, '--data', file, ...extra, '-o', 'json'], env());
      expect(r.code, `${kind}: ${r.stderr}`).toBe(2);
      const { error } = lastJson(r.stderr);
      expect(error.type).toBe('usage');
      expect(error.message).toMatch(
        new RegExp(
          `^--data ${file.replace(/[.]/g, '\\.')} is (not an SQLite database|the SQLite database of something else \\(tables: (customers|schema_migrations, users)\\), not a sandbox's); subctl writes into, and deletes, only files a sandbox made$`,
        ),
      );
      expect(sha(file), kind).toBe(before);
      expect(existsSync(`${file}-wal`) || existsSync(`${file}-shm`), kind).toBe(false);
    }
    // A file in a directory that does not exist; a directory.
    const missing = await run(['sandbox', verb, '--data', join(dir, 'nope', 's.db'), ...extra], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `error: --data ${join(dir, 'nope', 's.db')} is in a directory that does not exist (${join(dir, 'nope')})\n`,
    );
    expect(missing.stderr).toContain(`hint: create the directory first (mkdir -p ${join(dir, 'nope')})`);
    const directory = await run(['sandbox', verb, '--data', dir, ...extra], env());
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain(`error: --data ${dir} is a directory\n`);
    expect(directory.stderr).toContain(`hint: name a file, e.g. --data ${join(dir, 'sandbox.db')}`);
    for (const r of [missing, directory]) expect(r.stderr).not.toContain('this is a bug');
  });

  it('a file a sandbox made is reset (seeded again); a new file is created', async () => {
    const dir = tempDir('subctl-data-');
    const file = join(dir, 'mine.db');
    const first = await run(['sandbox', 'reset', '--data', file, '--yes'], env());
    expect(first.code, first.stderr).toBe(0);
    const db = openKept(file);
    db.exec("UPDATE services SET service_name = 'changed by hand' WHERE service_id = 1");
    db.close();
    const again = await run(['sandbox', 'reset', '--data', file, '--yes'], env());
    expect(again.code, again.stderr).toBe(0);
    const check = openKept(file, { readonly: true });
    expect(check.prepare('SELECT service_name FROM services WHERE service_id = 1').pluck().get()).not.toBe('changed by hand');
    check.close();
  });
});

describe('a damaged data file', () => {
  it("the embedded sandbox's own file: exit 1, said to be damaged, `subctl sandbox reset` as the way out, which works", async () => {
    const e = env();
    const seeded = await run(['--sandbox', 'services', 'list', '-o', 'json'], e);
    expect(seeded.code, seeded.stderr).toBe(0);
    const file = join(e.SUBCTL_CONFIG_DIR, 'data', 'sandbox.db');
    expect(existsSync(file)).toBe(true);
    // Cut short (a disk that failed); then not a database at all.
    truncateSync(file, 100_000);
    for (const f of [`${file}-wal`, `${file}-shm`]) if (existsSync(f)) writeFileSync(f, '');
    const cut = await run(['--sandbox', 'services', 'list', '-o', 'json'], e);
    expect(cut.code, cut.stderr).toBe(1);
    expect(lastJson(cut.stderr).error).toMatchObject({
      type: 'local',
      code: 'SQLITE_CORRUPT',
      message: `the sandbox data file ${file} is damaged (database disk image is malformed)`,
    });
    expect(lastJson(cut.stderr).error.hint).toBe("`subctl sandbox reset` deletes it and seeds a new one (the sandbox's data only)");
    writeFileSync(file, Buffer.alloc(5000, 7));
    const garbage = await run(['--sandbox', 'services', 'list'], e);
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toContain(`error: the sandbox data file ${file} is not an SQLite database\n`);
    expect(garbage.stderr).not.toContain('this is a bug');
    const reset = await run(['sandbox', 'reset', '--yes'], e);
    expect(reset.code, reset.stderr).toBe(0);
    const after = await run(['--sandbox', 'services', 'list', '-o', 'json'], e);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toHaveLength(13);
  });

  it('a damaged file the user named: exit 1 for serve; reset does not delete what it cannot tell is a sandbox', async () => {
    const e = env();
    const dir = tempDir('subctl-data-');
    mkdirSync(join(dir, 'x'));
    const file = join(dir, 'x', 'cut.db');
    expect((await run(['sandbox', 'reset', '--data', file, '--yes'], e)).code).toBe(0);
    truncateSync(file, 100_000);
    const before = sha(file);
    const serve = await run(['sandbox', 'serve', '--port', '0', '--data', file], e);
    expect(serve.code, serve.stderr).toBe(1);
    expect(serve.stderr).toContain(`error: --data ${file} is damaged (database disk image is malformed)\n`);
    const reset = await run(['sandbox', 'reset', '--data', file, '--yes'], e);
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain('subctl cannot tell whether a sandbox made it, and does not delete it');
    expect(sha(file)).toBe(before);
  });
});

describe('the data file is private', () => {
  const mode = (f: string) => statSync(f).mode & 0o777;
  it('the embedded sandbox makes its file 0600 (with its -wal and -shm), and repairs one an earlier version left 0644', async () => {
    const e = env();
    const r = await run(['--sandbox', 'services', 'list', '-o', 'json'], e);
    expect(r.code, r.stderr).toBe(0);
    const file = join(e.SUBCTL_CONFIG_DIR, 'data', 'sandbox.db');
    expect(mode(file)).toBe(0o600);
    for (const f of [`${file}-wal`, `${file}-shm`]) if (existsSync(f)) expect(mode(f)).toBe(0o600);
    chmodSync(file, 0o644);
    const again = await run(['--sandbox', 'services', 'list', '-o', 'json'], e);
    expect(again.code, again.stderr).toBe(0);
    expect(mode(file)).toBe(0o600);
  });

  it('a new file named with --data is made 0600 too', async () => {
    const file = join(tempDir('subctl-data-'), 'team.db');
    const r = await run(['sandbox', 'reset', '--data', file, '--yes'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(mode(file)).toBe(0o600);
  });
});
