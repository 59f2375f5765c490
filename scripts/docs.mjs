// `npm run docs`: the command reference (docs/commands/*.md), the man pages (man/*.1) and the
// help topics' pages, generated from the command tree by src/docs/. The TypeScript sources are
// bundled with esbuild into node_modules/.cache (so that their packages resolve from the
// repository's node_modules) and run here.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'node_modules/.cache/subctl-docs/write.cjs');
await build({
  entryPoints: [join(root, 'src/docs/write.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: out,
  packages: 'external',
  logLevel: 'warning',
  define: { 'import.meta.url': '__filename' },
});
const { writeDocs } = createRequire(import.meta.url)(out);
const changed = await writeDocs(root);
process.stdout.write(changed.length ? `${changed.map((p) => `wrote ${p}`).join('\n')}\n` : 'the generated docs are up to date\n');
