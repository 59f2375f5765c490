#!/usr/bin/env node
// `npm run bench`: every figure the issues name, as ratios against baselines measured in the
// same run on this machine (absolute times here are noisy; ratios are what we hold).
//
//   node bench/run.mjs            all benchmarks
//   node bench/run.mjs startup    only the named ones (startup, embedded, export, bulk, console)
import { spawnSync, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/subctl.js');
const only = new Set(process.argv.slice(2));
const want = (name) => only.size === 0 || only.has(name);
const results = [];

// Every temporary file of the run (data files of tens of MB, exports, config directories) goes
// under one directory that is removed when the run ends, even on Ctrl-C: the benches make them
// with mkdtempSync(tmpdir()), and os.tmpdir() reads TMPDIR at each call.
const runDir = mkdtempSync(join(tmpdir(), 'subctl-bench-'));
process.env.TMPDIR = runDir;
const removeRunDir = () => rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
process.once('SIGINT', () => {
  removeRunDir();
  process.exit(130);
});

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Wall time of a command, ms. */
function timeRun(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Runs the candidates interleaved, `n` rounds, and returns their medians. */
function compare(candidates, n = 21) {
  const times = candidates.map(() => []);
  for (let i = 0; i < n; i++) candidates.forEach((c, j) => times[j].push(c()));
  return times.map(median);
}

function record(name, value, baseline, limit, unit = 'x') {
  const ratio = value / baseline;
  const pass = unit === 'x' ? ratio <= limit : ratio >= limit;
  results.push({ name, value, baseline, ratio, limit, pass, unit });
  const cmp = unit === 'x' ? `<= ${limit}x` : `>= ${limit}`;
  console.log(`${pass ? 'PASS' : 'FAIL'}  ${name}: ${ratio.toFixed(2)} (${value.toFixed(1)} vs ${baseline.toFixed(1)}; target ${cmp})`);
}

async function startupBench() {
  const env = {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(tmpdir(), 'bench-home-')),
    SUBCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'bench-cfg-')),
  };
  const services = Array.from({ length: 20 }, (_, i) => ({
    service_id: i + 1,
    service_code: `S${i}`,
    service_name: `Service ${i}`,
    service_type: 'HYBRID',
    is_active: true,
  }));
  const body = JSON.stringify({
    status: true,
    message: 'OK',
    data: { pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 20 }, services },
  });
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  // The server runs in this process; spawnSync would block it, so serve from a child instead.
  server.close();
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('http').createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json'});s.end(${JSON.stringify(body)})}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise((r) => child.stdout.once('data', (d) => r(Number(String(d).trim()))));
  const target = `http://127.0.0.1:${port}`;
  void url;
  const [bare, version, list] = compare([
    () => timeRun(process.execPath, ['-e', '0'], env),
    () => timeRun(process.execPath, [bin, '--version'], env),
    () => timeRun(process.execPath, [bin, 'services', 'list', '-o', 'json', '--base-url', target], { ...env, SUBCTL_TOKEN: 'bench' }),
  ]);
  child.kill();
  console.log(`\nstart-up (median of 21, interleaved): node -e 0 ${bare.toFixed(1)} ms`);
  record('subctl --version vs node -e 0', version, bare, 1.5);
  record('subctl services list -o json (local server) vs node -e 0', list, bare, 2.5);
}

async function main() {
  console.log(`subctl bench, ${new Date().toISOString()}, node ${process.version}, ${process.platform}/${process.arch}`);
  if (want('startup')) await startupBench();
  if (want('embedded')) {
    const { sandboxBench } = await import('./sandbox.mjs');
    await sandboxBench({ want, compare, timeRun, record, bin });
  }
  if (want('export') || want('bulk')) {
    const { exportsBench } = await import('./exports.mjs');
    await exportsBench({ want, compare, timeRun, record, bin, root });
  }
  if (want('console')) {
    const { consoleBench } = await import('./console.mjs');
    await consoleBench({ record, compare, timeRun, bin, root });
  }
  const failed = results.filter((r) => !r.pass);
  console.log(`\n${results.length - failed.length} of ${results.length} targets met`);
  process.exitCode = failed.length ? 1 : 0;
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(removeRunDir);
