/**
 * Races across processes: two sandbox servers (child processes) over one data file, hit at
 * once. Each usage code must be activated exactly once; the loser gets 409, never a 500.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { openKept } from '../../src/sandbox/keep.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './user-harness.js';
import { tempDir } from '../support/tmp.js';

const root = resolve(import.meta.dirname, '../..');
let dir: string;
let bundle: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = tempDir('subctl-user-race-');
  // The bundle imports better-sqlite3 (native): let it resolve from the project.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const entry = join(dir, 'server-entry.ts');
  writeFileSync(
    entry,
    `import { startSandbox } from ${JSON.stringify(join(root, 'src/sandbox/server.ts'))};
const sb = await startSandbox({ dataFile: process.argv[2], port: 0, quiet: true, scale: 0.05 });
process.stdout.write(JSON.stringify({ url: sb.url }) + '\\n');
process.stdin.on('end', () => sb.close().then(() => process.exit(0)));
process.stdin.resume();
`,
  );
  bundle = join(dir, 'server.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundle,
    external: ['better-sqlite3'],
    logLevel: 'error',
  });
}, 60_000);

afterAll(async () => {
  for (const c of children) {
    c.stdin?.end();
    await new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)));
  }
  rmSync(dir, { recursive: true, force: true });
});

function startServer(dataFile: string): Promise<string> {
  const c = spawn(process.execPath, [bundle, dataFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(c);
  return new Promise((res, rej) => {
    const rl = createInterface({ input: c.stdout! });
    rl.once('line', (l) => res(JSON.parse(l).url));
    c.once('exit', (code) => rej(new Error(`sandbox child exited with ${code}`)));
  });
}

async function post(url: string, path: string, body: unknown, token?: string) {
  const r = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as any };
}

describe('cross-process races on one data file', () => {
  it('two processes activating the same codes at once: exactly one activation per code', async () => {
    const dataFile = join(dir, 'race.db');
    const a = await startServer(dataFile); // seeds the file
    const b = await startServer(dataFile);
    const db = openKept(dataFile);
    db.pragma('busy_timeout = 5000');
    const f = fixture({ db });
    const N = 40;
    const codes = Array.from({ length: N }, (_, i) => `RACE-${String(i).padStart(4, '0')}`);
    db.transaction(() => codes.forEach((c) => f.code(c, f.paid.linkId, 10)))();

    const tA = (await post(a, '/auth/login', { username: 'enduser', password: 'sandbox-enduser' })).json.data.token;
    const tB = (await post(b, '/auth/login', { username: 'support', password: 'sandbox-support' })).json.data.token;
    // Every code asked of both servers at the same moment, a code at a time, the first sender
    // alternating. (All 40 at once let one server take every code in a single commit of its
    // batched writes: still exactly once each, but no race between the two processes.)
    const results: Array<{ code: string; who: string; status: number; json: any }> = [];
    for (const [i, code] of codes.entries()) {
      const fromA = () => post(a, '/user/codes/activate', { activation_code: code }, tA).then((r) => ({ code, who: 'enduser', ...r }));
      const fromB = () => post(b, '/user/codes/activate', { activation_code: code }, tB).then((r) => ({ code, who: 'support', ...r }));
      results.push(...(await Promise.all(i % 2 === 0 ? [fromA(), fromB()] : [fromB(), fromA()])));
    }
    expect(results.filter((r) => r.status !== 200 && r.status !== 409)).toEqual([]);
    const wins = new Map<string, string>();
    for (const code of codes) {
      const mine = results.filter((r) => r.code === code);
      expect(mine.filter((r) => r.status === 200)).toHaveLength(1);
      const loser = mine.find((r) => r.status === 409)!;
      expect(loser.json).toMatchObject({
        status: false,
        data: { success: false, error_code: 'CODE_ALREADY_USED', message: 'code already used' },
        error: { code: 'CODE_ALREADY_USED', message: 'code already used' },
      });
      wins.set(code, mine.find((r) => r.status === 200)!.who);
    }
    const ids = { enduser: 6, support: 4 } as Record<string, number>;
    for (const code of codes) {
      expect(db.prepare('SELECT is_used, used_by FROM usage_codes WHERE code_value = ?').get(code)).toEqual({
        is_used: 1,
        used_by: ids[wins.get(code)!],
      });
    }
    for (const who of ['enduser', 'support']) {
      const won = [...wins.values()].filter((w) => w === who).length;
      const credits = (
        db
          .prepare('SELECT COALESCE(SUM(total_credits), 0) AS n FROM subscriptions WHERE user_id = ? AND service_id = ?')
          .get(ids[who], f.serviceId) as any
      ).n;
      expect(credits).toBe(10 * won);
      // All of one user's codes went to one subscription (created by the first, credited by the rest).
      const subs = (
        db.prepare('SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = ? AND service_id = ?').get(ids[who], f.serviceId) as any
      ).n;
      expect(subs).toBe(won > 0 ? 1 : 0);
    }
    // The race was real: both processes won some codes.
    expect(new Set(wins.values()).size).toBe(2);
    db.close();
  }, 60_000);

  it('two processes spending one wallet at once never overdraw it', async () => {
    const dataFile = join(dir, 'wallet.db');
    const a = await startServer(dataFile);
    const b = await startServer(dataFile);
    const db = openKept(dataFile);
    db.pragma('busy_timeout = 5000');
    const f = fixture({ db });
    db.prepare('UPDATE users SET wallet_balance = 100 WHERE user_id = 6').run(); // room for exactly 4 purchases of 25
    const txBefore = (
      db.prepare("SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = 6 AND transaction_type = 'deduct'").get() as any
    ).n;
    const tA = (await post(a, '/auth/login', { username: 'enduser', password: 'sandbox-enduser' })).json.data.token;
    const tB = (await post(b, '/auth/login', { username: 'enduser', password: 'sandbox-enduser' })).json.data.token;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(i % 2 ? a : b, '/user/subscriptions/buy', { payment_method: 'WALLET', service_plan_id: f.paid.linkId }, i % 2 ? tA : tB),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(results.filter((r) => r.status === 400).every((r) => r.json.error.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(results.filter((r) => r.status !== 200 && r.status !== 400)).toEqual([]);
    expect((db.prepare('SELECT wallet_balance FROM users WHERE user_id = 6').get() as any).wallet_balance).toBe(0);
    const txAfter = (
      db.prepare("SELECT COUNT(*) AS n FROM wallet_transactions WHERE user_id = 6 AND transaction_type = 'deduct'").get() as any
    ).n;
    expect(txAfter - txBefore).toBe(4);
    db.close();
  }, 60_000);
});
