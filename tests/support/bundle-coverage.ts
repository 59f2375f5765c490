/**
 * Which of the bundle's source modules a run evaluated, from V8's coverage (NODE_V8_COVERAGE)
 * and the bundle's source map. dist/subctl.cjs is minified, so its functions carry no names to
 * go by: each function that ran is traced to the source file of the first mapped position in
 * its body. A module's code runs only after its lazy wrapper did (esbuild), so a file with any
 * function that ran is a file the command evaluated.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Module from 'node:module';

interface Coverage {
  result: Array<{
    url: string;
    functions: Array<{ functionName: string; ranges: Array<{ startOffset: number; endOffset: number; count: number }> }>;
  }>;
}

const B64 = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]));

/** The source map's segments as [generated offset in the file, source index], in order. */
function segments(bundle: string, map: { mappings: string }): Array<[number, number]> {
  const lineStarts = [0];
  for (let i = bundle.indexOf('\n'); i !== -1; i = bundle.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const out: Array<[number, number]> = [];
  let source = 0;
  const lines = map.mappings.split(';');
  for (let line = 0; line < lines.length; line++) {
    let col = 0;
    for (const seg of lines[line].split(',')) {
      if (!seg) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = B64.get(ch)!;
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      col += fields[0];
      if (fields.length >= 4) {
        source += fields[1];
        out.push([lineStarts[line] + col, source]);
      }
    }
  }
  return out;
}

/** One bundle file of dist/: its segments, its sources' names, and the offset coverage adds. */
interface Bundle {
  segs: Array<[number, number]>;
  names: string[];
  head: number;
}

function loadBundle(distDir: string, file: string): Bundle {
  const bundle = readFileSync(join(distDir, file), 'latin1');
  const map = JSON.parse(readFileSync(join(distDir, `${file}.map`), 'utf8')) as { sources: string[]; mappings: string };
  const names = map.sources.map((s) => s.replace(/^(\.\.\/)+/, '').replace(/^.*?\b(src|node_modules)\//, '$1/'));
  // The launcher compiles Module.wrap(source) for subctl.cjs: coverage offsets count the
  // wrapper's head too. Node's own loader (the bundle's require of transport-undici.cjs)
  // compiles a file's text as it is.
  const head = file === 'subctl.cjs' ? Module.wrap('\0').indexOf('\0') : 0;
  return { segs: segments(bundle, map), names, head };
}

/**
 * The source files (`src/...`, `node_modules/...`) with code that ran, of every bundle in
 * dist/: subctl.cjs and transport-undici.cjs (undici, required when a run first needs it).
 */
export function evaluatedModules(coverageDir: string, distDir: string): string[] {
  const bundles = new Map<string, Bundle>();
  const modules = new Set<string>();
  for (const f of readdirSync(coverageDir)) {
    const cov = JSON.parse(readFileSync(join(coverageDir, f), 'utf8')) as Coverage;
    for (const script of cov.result) {
      const file = /\/dist\/([\w-]+\.cjs)$/.exec(script.url)?.[1];
      if (!file) continue;
      if (!bundles.has(file)) bundles.set(file, loadBundle(distDir, file));
      const { segs, names, head } = bundles.get(file)!;
      for (const fn of script.functions) {
        const r = fn.ranges[0];
        if (r.count === 0 || r.startOffset < head) continue; // never ran, or the whole script
        const start = r.startOffset - head;
        const end = r.endOffset - head;
        // first segment at or after the function's start
        let lo = 0;
        let hi = segs.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (segs[mid][0] < start) lo = mid + 1;
          else hi = mid;
        }
        if (lo < segs.length && segs[lo][0] < end) modules.add(names[segs[lo][1]]);
      }
    }
  }
  return [...modules];
}
