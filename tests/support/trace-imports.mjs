// Preload (node --import) that records every module the process loads, ESM and CommonJS,
// into $TRACE_FILE, so a test can prove what a command did not load.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.TRACE_FILE;
register('./trace-hooks.mjs', import.meta.url, { data: { file } });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  appendFileSync(file, `cjs ${request}\n`);
  return load.call(this, request, parent, isMain);
};
