#!/usr/bin/env node
// The launcher: colour rules that must hold before any library reads the environment, then the
// bundle. Nothing heavy is imported here; dist/main.js loads the rest on demand.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered from package.json without loading the bundle (node:fs is loaded by Node anyway).
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '' && process.env.FORCE_COLOR === undefined) {
    process.env.FORCE_COLOR = '0';
  }
  if (args.includes('--no-color') && process.env.FORCE_COLOR === undefined) {
    process.env.FORCE_COLOR = '0';
  }
  const { runProcess } = await import('../dist/main.js');
  await runProcess();
}
