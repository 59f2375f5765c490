import { it } from 'vitest';
import { runCli } from '../support/run-cli.js';
it('scratch', async () => {
  for (const line of (process.env.SCRATCH ?? '').split('||')) {
    const r = await runCli(line, { env: { SUBCTL_BASE_URL: 'http://127.0.0.1:9' }, stdin: process.env.STDIN });
    console.log(`$ ${line}\n${r.stdout}---stderr---\n${r.stderr}exit ${r.code}`);
  }
});
