/**
 * The layers of docs/architecture.md hold in the sources: every import of every file under
 * src/ (static, dynamic, type-only and `export ... from`), read with TypeScript's own scanner,
 * resolved to the top-level part of src/ it points into.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(__dirname, '../../src');

/** Every .ts and .tsx file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** A path as docs/architecture.md names it: from src/, with `/`, a module by its .ts name (`api/errors.ts`). */
function fromSrc(path: string): string {
  return relative(src, path).split(sep).join('/').replace(/\.js$/, '.ts');
}

/** The part of src/ a path lies in: its first directory (`ui`), or the file itself (`io.ts`); `..` outside src/. */
function layerOf(path: string): string {
  const rel = fromSrc(path);
  return rel.startsWith('..') ? '..' : rel.split('/')[0]!;
}

interface Import {
  file: string;
  specifier: string;
  /** The module imported, from src/ (`api/errors.ts`). */
  target: string;
  layer: string;
}

/** The relative imports of the files under src/`layer`, each with the module and the layer it reaches. */
function importsOf(layer: string): Import[] {
  return sourceFiles(join(src, layer)).flatMap((file) =>
    ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((f) => f.fileName)
      .filter((s) => s.startsWith('.'))
      .map((specifier) => {
        const to = resolve(dirname(file), specifier);
        return { file: fromSrc(file), specifier, target: fromSrc(to), layer: layerOf(to) };
      }),
  );
}

/**
 * What each layer may import besides itself, as paths from src/ or their beginnings
 * (docs/architecture.md, "The layers"): the console, the resources and the bulk engine never
 * reach the command line; the client and the sandbox know nothing of the command line or the
 * console. `io.ts` and
 * `builtin.ts` are leaves any layer may use; the client reads its version from package.json.
 */
const LEAVES = ['io.ts', 'builtin.ts'];
const MAY_IMPORT: Record<string, string[]> = {
  ui: ['resources/', 'output/', 'api/', 'config/', ...LEAVES],
  resources: ['api/', 'output/', ...LEAVES],
  bulk: ['api/', 'config/', 'output/', ...LEAVES],
  api: ['../package.json', ...LEAVES],
  sandbox: ['api/contract/', 'api/errors.ts', 'config/paths.ts', ...LEAVES],
};

describe('layers: what each part of src/ may import', () => {
  it('the scanner sees static, dynamic, type-only and re-exported imports (the check can fail)', () => {
    const text = [
      "import { a } from '../cli/a.js';",
      "import type { B } from '../commands/b.js';",
      "export { c } from '../cli/c.js';",
      "const d = await import('../commands/d.js');",
      "let e: import('../cli/e.js').E;",
    ].join('\n');
    const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => layerOf(resolve(src, 'ui', f.fileName)));
    expect(found).toEqual(['cli', 'commands', 'cli', 'commands', 'cli']);
    // And the sources are read: the command line imports the value conversion of the contract.
    expect(importsOf('cli')).toContainEqual({
      file: 'cli/verbs.ts',
      specifier: '../api/contract/convert.js',
      target: 'api/contract/convert.ts',
      layer: 'api',
    });
  });

  for (const [layer, allowed] of Object.entries(MAY_IMPORT)) {
    it(`src/${layer} imports only ${allowed.join(', ')}`, () => {
      const imports = importsOf(layer);
      expect(imports.length).toBeGreaterThan(0);
      const outside = imports.filter(
        (i) => i.layer !== layer && !allowed.some((a) => i.target === a || (a.endsWith('/') && i.target.startsWith(a))),
      );
      expect(outside.map((i) => `${i.file} imports ${i.specifier}`)).toEqual([]);
    });
  }

  it('the console imports neither src/commands nor src/cli', () => {
    const up = importsOf('ui').filter((i) => i.layer === 'commands' || i.layer === 'cli');
    expect(up.map((i) => `${i.file} imports ${i.specifier}`)).toEqual([]);
  });

  it('src/api and src/sandbox import none of src/cli, src/commands, src/ui', () => {
    const up = [...importsOf('api'), ...importsOf('sandbox')].filter((i) => ['cli', 'commands', 'ui'].includes(i.layer));
    expect(up.map((i) => `${i.file} imports ${i.specifier}`)).toEqual([]);
  });
});
