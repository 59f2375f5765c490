/**
 * `npm run docs` (scripts/docs.mjs bundles and runs this): writes every generated page under the
 * repository root given as the first argument, and removes a generated directory's files that
 * are no longer generated (a verb removed, a group renamed).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GENERATED_DIRS, renderAll } from './generate.js';

export async function writeDocs(root: string): Promise<string[]> {
  const files = await renderAll();
  const changed: string[] = [];
  for (const [path, text] of files) {
    const file = join(root, path);
    let old: string | undefined;
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      old = undefined;
    }
    if (old === text) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    changed.push(path);
  }
  for (const dir of GENERATED_DIRS) {
    let names: string[];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      continue;
    }
    for (const n of names) {
      if (files.has(`${dir}/${n}`)) continue;
      rmSync(join(root, dir, n));
      changed.push(`${dir}/${n} (removed)`);
    }
  }
  return changed;
}
