// The console's figures (issue 7), for bench/run.mjs:
//
//   1. launch to the first full table: the real binary in tmux (120x40) against a local stub
//      platform, polling capture-pane for the table's last row; ratio to `node -e` drawing one
//      word in the same tmux harness (the baseline carries the same tmux and polling costs);
//   2. a page's data arriving to its frame being drawn, for 100-row pages: in process, the
//      built console (dist/ui-*.js) rendered by Ink on a fake 120x40 terminal; must be < 50 ms;
//   3. requests made when going back to a page seen within 5 minutes: counted by the stub; 0.
//
// Exported as `consoleBench({ record, compare, timeRun, bin, root })`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const ROWS = 40;
const COLS = 120;
const PAGE = 30;

/** The stub platform, in a child process so that this one can block on tmux calls. */
const STUB = `
const http = require('http');
let count = 0;
const total = 3000;
const row = (i) => ({ subscription_id: i, username: 'row-' + String(i).padStart(4, '0'), service_code: 'GPT4', plan_code: 'PRO-M', status: 'active', end_date: '2026-12-01T00:00:00Z', remaining_credits: 1000 - (i % 1000) });
http.createServer((q, s) => {
  const u = new URL(q.url, 'http://x');
  if (u.pathname === '/__count') { s.writeHead(200, { 'content-type': 'application/json' }); return s.end(JSON.stringify({ count })); }
  count++;
  let data = {};
  if (u.pathname === '/admin/subscriptions') {
    const page = Number(u.searchParams.get('page_number') || 1), size = Number(u.searchParams.get('page_size') || 20);
    const rows = [];
    for (let i = (page - 1) * size + 1; i <= Math.min(total, page * size); i++) rows.push(row(i));
    data = { pagination: { current_page: page, page_size: size, total_pages: Math.ceil(total / size), total_records: total }, subscriptions: rows };
  }
  s.writeHead(200, { 'content-type': 'application/json' });
  s.end(JSON.stringify({ status: true, message: 'OK', data }));
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });
`;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** For short synchronous pauses between tmux polls (a busy loop would steal the CPU being measured). */
const pause = new Int32Array(new SharedArrayBuffer(4));

function tmuxAvailable() {
  return spawnSync('tmux', ['-V']).status === 0;
}

async function stubCount(url) {
  const res = await fetch(`${url}/__count`);
  return (await res.json()).count;
}

/** Runs `cmd` in a fresh tmux session and returns ms until `done(screen)` holds (polling capture-pane). */
function timeInTmux(socket, name, cmd, done, timeoutMs = 20_000) {
  const t0 = performance.now();
  const r = spawnSync('tmux', ['-L', socket, 'new-session', '-d', '-s', name, '-x', String(COLS), '-y', String(ROWS), cmd]);
  if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  for (;;) {
    const screen = spawnSync('tmux', ['-L', socket, 'capture-pane', '-p', '-t', name], { encoding: 'utf8' }).stdout;
    if (done(screen)) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out in tmux session ${name}; screen:\n${screen}`);
    Atomics.wait(pause, 0, 0, 3);
  }
}

async function waitScreen(socket, name, done, timeoutMs = 10_000) {
  const t0 = performance.now();
  for (;;) {
    const screen = spawnSync('tmux', ['-L', socket, 'capture-pane', '-p', '-t', name], { encoding: 'utf8' }).stdout;
    if (done(screen)) return screen;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out in tmux session ${name}; screen:\n${screen}`);
    await sleep(10);
  }
}

async function tmuxBenches({ record, bin }) {
  const child = spawn(process.execPath, ['-e', STUB], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((r) => child.stdout.once('data', (d) => r(Number(String(d).trim()))));
  const url = `http://127.0.0.1:${port}`;
  const socket = `subctl-bench-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-console-'));
  const env = `env -i PATH="${process.env.PATH}" HOME="${dir}" TERM=xterm-256color LANG=C.UTF-8 SUBCTL_CONFIG_DIR="${join(dir, 'cfg')}" SUBCTL_TOKEN=bench`;
  const consoleCmd = `${env} "${process.execPath}" "${bin}" console subscriptions --base-url ${url} --page-size ${PAGE}; sleep 30`;
  const baseCmd = `${env} "${process.execPath}" -e "process.stdout.write('ready')"; sleep 30`;
  const lastRow = `row-${String(PAGE).padStart(4, '0')}`;
  const kill = (name) => spawnSync('tmux', ['-L', socket, 'kill-session', '-t', name]);
  // A session that outlives the measured ones: tmux exits with its last session, and a new
  // session started while the server exits fails.
  spawnSync('tmux', ['-L', socket, 'new-session', '-d', '-s', 'keep', 'sleep 600']);
  try {
    const base = [];
    const ui = [];
    for (let i = 0; i < 7; i++) {
      base.push(timeInTmux(socket, `b${i}`, baseCmd, (s) => s.includes('ready')));
      kill(`b${i}`);
      ui.push(timeInTmux(socket, `c${i}`, consoleCmd, (s) => s.includes(lastRow) && s.includes('page 1 of')));
      if (i < 6) kill(`c${i}`);
      Atomics.wait(pause, 0, 0, 50);
    }
    const b = median(base);
    const c = median(ui);
    console.log(
      `\nconsole (tmux ${COLS}x${ROWS}, median of 7): node -e drawing one word ${b.toFixed(1)} ms; console to its first full table ${c.toFixed(1)} ms`,
    );
    record('console: launch to the first full table vs node -e (tmux)', c, b, 20);

    // Revisit within 5 minutes: page 2, back to page 1, count what reached the server.
    const name = 'c6';
    spawnSync('tmux', ['-L', socket, 'send-keys', '-t', name, 'NPage']);
    await waitScreen(socket, name, (s) => s.includes(`row-${String(2 * PAGE).padStart(4, '0')}`) && s.includes('page 2 of'));
    const before = await stubCount(url);
    spawnSync('tmux', ['-L', socket, 'send-keys', '-t', name, 'PPage']);
    await waitScreen(socket, name, (s) => s.includes(lastRow) && s.includes('page 1 of'));
    await sleep(300);
    const extra = (await stubCount(url)) - before;
    console.log(`requests when going back to page 1 (seen moments ago): ${extra}`);
    record('console: requests for a page revisited within 5 minutes (must be 0)', extra, 1, 0);
    spawnSync('tmux', ['-L', socket, 'send-keys', '-t', name, 'q']);
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    // tmux leaves its socket file behind when the server is killed.
    rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
    child.kill();
  }
}

/** A terminal that is not one: 120x40, collects what Ink writes. */
class FakeTerminal extends Writable {
  constructor(onWrite) {
    super();
    this.columns = COLS;
    this.rows = ROWS;
    this.isTTY = true;
    this.onWrite = onWrite;
  }
  _write(chunk, _enc, cb) {
    this.onWrite(String(chunk));
    cb();
  }
}

async function frameBench({ record, root }) {
  // The screens are inside dist/subctl.cjs, which exports only the CLI: bundle the same source
  // (src/ui/index.ts) as an ES module for this process, dependencies left to node_modules.
  const { build } = await import('esbuild');
  const out = join(root, 'bench/.build/ui.mjs');
  await build({
    entryPoints: [join(root, 'src/ui/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile: out,
    logLevel: 'error',
  });
  // Ink reads CI variables once as it loads and then draws nothing: hide them (see src/ui/load.ts).
  for (const k of Object.keys(process.env)) if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_')) delete process.env[k];
  process.env.NODE_ENV ??= 'production';
  const ui = await import(pathToFileURL(out).href);
  const { render } = await import('ink');
  const SIZE = 100;
  const row = (i) => ({
    subscription_id: i,
    username: `row-${String(i).padStart(5, '0')}`,
    service_code: 'GPT4',
    plan_code: 'PRO-M',
    status: i % 7 ? 'active' : 'paused',
    end_date: '2026-12-01T00:00:00Z',
    remaining_credits: 1000 - (i % 1000),
  });
  let arrived = 0;
  const api = {
    async call(ep, input) {
      const page = Number(input?.query?.page_number ?? 1);
      // A little latency, as a loopback server would have.
      await sleep(10);
      const rows = Array.from({ length: SIZE }, (_, k) => row((page - 1) * SIZE + k + 1));
      return { pagination: { current_page: page, page_size: SIZE, total_pages: 100, total_records: 100 * SIZE }, subscriptions: rows };
    },
    async callFull(ep, input) {
      return { data: await this.call(ep, input) };
    },
  };
  const cache = new ui.QueryCache(async (spec) => {
    const data = await api.call(spec.endpoint, spec.input);
    arrived = performance.now();
    return data;
  });
  let waiting;
  const stdout = new FakeTerminal((s) => {
    if (waiting && s.includes(waiting.marker)) {
      waiting.resolve(performance.now());
      waiting = undefined;
    }
  });
  const stdin = new PassThrough();
  Object.assign(stdin, { isTTY: true, setRawMode() {}, ref() {}, unref() {} });
  const { element } = ui.createConsole({
    api,
    session: { profile: 'bench', target: 'http://127.0.0.1', user: 'admin', role: 'admin' },
    resource: 'subscriptions',
    pageSize: SIZE,
    cache,
    viewport: { columns: COLS, rows: ROWS },
  });
  const frameWith = (marker) => new Promise((resolve) => (waiting = { marker, resolve }));
  // The last row in view of page p: the table shows ROWS - 7 rows.
  const lastVisible = (p) => `row-${String((p - 1) * SIZE + (ROWS - 7)).padStart(5, '0')}`;
  const first = frameWith(lastVisible(1));
  const instance = render(element, { stdin, stdout, stderr: new PassThrough(), ...ui.RENDER_OPTIONS, patchConsole: false });
  await first;
  const times = [];
  for (let p = 2; p <= 21; p++) {
    await sleep(40);
    const drawn = frameWith(lastVisible(p));
    stdin.write('\u001b[6~'); // PgDn
    const at = await drawn;
    times.push(at - arrived);
  }
  instance.unmount();
  const m = median(times);
  console.log(
    `page data to frame, 100-row pages (median of ${times.length}): ${m.toFixed(1)} ms (max ${Math.max(...times).toFixed(1)} ms)`,
  );
  record('console: a 100-row page, data to frame (ms, limit 50)', m, 50, 1);
}

export async function consoleBench({ record, bin, root }) {
  if (tmuxAvailable()) await tmuxBenches({ record, bin });
  else console.log('\nconsole: tmux is not installed; the launch and revisit figures are skipped');
  await frameBench({ record, root });
}

// `node bench/console.mjs` runs it alone.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { resolve, dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const record = (name, value, baseline, limit) => {
    const ratio = value / baseline;
    console.log(
      `${ratio <= limit ? 'PASS' : 'FAIL'}  ${name}: ${ratio.toFixed(2)} (${value.toFixed(1)} vs ${baseline.toFixed(1)}; target <= ${limit}x)`,
    );
  };
  await consoleBench({ record, bin: join(root, 'bin/subctl.js'), root });
  writeFileSync('/dev/null', '');
}
