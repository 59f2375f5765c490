/**
 * The generated reference cannot go stale: what `npm run docs` writes (src/docs/generate.ts) is
 * what is committed, file for file, and the man pages render with man(1).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_DIRS, renderAll } from '../../src/docs/generate.js';

const root = resolve(__dirname, '../..');
let files: Map<string, string>;
beforeAll(async () => {
  files = await renderAll();
}, 60_000);

const manInstalled = spawnSync('sh', ['-c', 'command -v man'], { encoding: 'utf8' }).status === 0;

describe('the generated reference', () => {
  it('is committed as generated: run `npm run docs` after changing a command', () => {
    const stale: string[] = [];
    for (const [path, text] of files) {
      const file = join(root, path);
      if (!existsSync(file)) stale.push(`${path}: missing`);
      else if (readFileSync(file, 'utf8') !== text) stale.push(`${path}: differs`);
    }
    for (const dir of GENERATED_DIRS) {
      for (const name of readdirSync(join(root, dir))) if (!files.has(`${dir}/${name}`)) stale.push(`${dir}/${name}: no longer generated`);
    }
    expect(stale, 'run `npm run docs` and commit what it writes').toEqual([]);
  });

  it('has a page and a man page for each group, with every verb, its endpoint, flags and examples', () => {
    const services = files.get('docs/commands/services.md')!;
    expect(services).toContain('## subctl services list\n');
    expect(services).toContain('Calls: `GET /admin/services`.');
    expect(services).toContain('| `--service-type <value>` | one of TIME_BASED\\|USAGE_BASED\\|HYBRID |');
    expect(services).toContain('subctl services get --service-code GPT4\n');
    expect(files.get('docs/commands/subscriptions.md')).toContain('Calls: `PUT /admin/subscriptions/{id}/manage`.');
    expect(files.get('docs/commands/auth.md')).toMatch(/Calls: `POST \/auth\/login`, `POST \/cms\/auth\/login` \(with --cms\)\./);
    expect(files.get('docs/commands/README.md')).toContain('| [`services`](services.md) |');
    for (const g of ['services', 'plans', 'users', 'version', 'cleanup']) expect(files.has(`man/subctl-${g}.1`), g).toBe(true);
    expect(files.get('docs/exit-codes.md')).toContain('| 9 |');
    expect(files.get('docs/configuration.md')).toContain('| `SUBCTL_TOKEN` |');
    for (const [path, text] of files) expect(text, path).not.toContain('9007199254740991');
  });

  it.skipIf(!manInstalled)('man -l renders man/subctl-services.1 and man/subctl.1 without warnings', () => {
    for (const page of ['man/subctl-services.1', 'man/subctl.1']) {
      const r = spawnSync('man', ['--warnings', '-l', join(root, page)], {
        encoding: 'utf8',
        env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      if (page.endsWith('services.1')) {
        expect(r.stdout).toMatch(/^SUBCTL-SERVICES\(1\) +User Commands/);
        expect(r.stdout).toContain('subctl services create');
        expect(r.stdout).toContain('Calls: GET /admin/services.');
        expect(r.stdout).toContain('subctl services delete --service-code GPT4 --force-delete --yes');
      } else {
        expect(r.stdout).toContain('EXIT STATUS');
        expect(r.stdout).toContain('SUBCTL_TOKEN');
      }
    }
  });
});
