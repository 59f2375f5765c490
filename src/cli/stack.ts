/**
 * Stack traces in source terms. dist/subctl.cjs is minified and run through vm.Script, for which
 * Node applies no source map (not even under --enable-source-maps), so a bug's stack trace
 * (SUBCTL_DEBUG=1) is translated here with the map the build writes beside the bundle. Loaded
 * only when a trace is printed.
 */
import { readFileSync } from 'node:fs';
import Module, { SourceMap } from 'node:module';

/** Characters the launcher's Module.wrap() puts before the bundle's first line. */
export const WRAP_HEAD = Module.wrap('\0').indexOf('\0');

/**
 * `stack` with each position in `bundle` (`/.../dist/subctl.cjs:1:52311`) replaced by its source
 * position (`src/cli/run.ts:243:19`), as --enable-source-maps would show it; positions the map
 * does not cover, and every frame when the map is missing or unreadable, stay as they were.
 */
export function sourceStack(stack: string, bundle: string, wrapHead = WRAP_HEAD): string {
  let map: SourceMap;
  try {
    map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
  } catch {
    return stack;
  }
  const escaped = bundle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return stack.replace(new RegExp(`${escaped}:(\\d+):(\\d+)`, 'g'), (whole, l: string, c: string) => {
    const line = Number(l) - 1;
    const column = Number(c) - 1 - (line === 0 ? wrapHead : 0);
    const e = map.findEntry(line, column) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    if (!e?.originalSource) return whole;
    const src = e.originalSource.replace(/^.*?\b(src|node_modules)\//, '$1/');
    return `${src}:${e.originalLine! + 1}:${e.originalColumn! + 1}`;
  });
}
