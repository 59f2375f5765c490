/**
 * A bug's stack trace (SUBCTL_DEBUG=1) names source positions although the bundle is minified:
 * frames in dist/subctl.cjs are translated with the map the build writes beside it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sourceStack, WRAP_HEAD } from '../../src/cli/stack.js';

const root = resolve(__dirname, '../..');
const bundle = join(root, 'dist/subctl.cjs');

beforeAll(() => {
  if (!existsSync(bundle)) throw new Error('dist/ is missing: run `npm run build` (npm test does it)');
});

/** Line and column (1-based, as V8 prints them for the wrapped script) of `text` in the bundle. */
function framePosition(text: string): string {
  const src = readFileSync(bundle, 'latin1');
  const at = src.indexOf(text);
  expect(at, text).toBeGreaterThan(0);
  const line = src.slice(0, at).split('\n').length;
  const column = at - (src.lastIndexOf('\n', at - 1) + 1) + (line === 1 ? WRAP_HEAD : 0) + 1;
  return `${line}:${column}`;
}

function sourceLine(file: string, text: string): number {
  return (
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(text)) + 1
  );
}

describe('source positions in a bug report', () => {
  it('a frame in the bundle names its position in the source instead', () => {
    const text = 'this is a bug in subctl; please report it';
    const stack = `TypeError: x\n    at reportError (${bundle}:${framePosition(text)})\n    at node:internal/process/task_queues:95:5`;
    const out = sourceStack(stack, bundle);
    expect(out).toMatch(new RegExp(`^    at reportError \\(src/cli/report\\.ts:${sourceLine('src/cli/report.ts', text)}:\\d+\\)$`, 'm'));
    expect(out).not.toContain(bundle);
    expect(out.split('\n')[2]).toBe('    at node:internal/process/task_queues:95:5');
  });

  it('without a map the stack is printed as it was', () => {
    const stack = `Error: x\n    at f (/nowhere/dist/subctl.cjs:1:100)`;
    expect(sourceStack(stack, '/nowhere/dist/subctl.cjs')).toBe(stack);
  });
});
