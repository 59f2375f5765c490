#!/usr/bin/env node
// The launcher: colour rules that must hold before any library reads the environment, then the
// bundle. Nothing heavy is imported here; dist/main.js loads the rest on demand.
if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '' && process.env.FORCE_COLOR === undefined) {
  process.env.FORCE_COLOR = '0';
}
if (process.argv.includes('--no-color') && process.env.FORCE_COLOR === undefined) {
  process.env.FORCE_COLOR = '0';
}
const { runProcess } = await import('../dist/main.js');
await runProcess();
