// The embedded sandbox's start to its first answer, against a bare node process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function sandboxBench({ want, compare, timeRun, record, bin }) {
  if (want('embedded')) {
    const cfg = mkdtempSync(join(tmpdir(), 'bench-emb-'));
    const env = { PATH: process.env.PATH, HOME: cfg, SUBCTL_CONFIG_DIR: cfg };
    timeRun(process.execPath, [bin, '--sandbox', 'services', 'list', '-o', 'json'], env); // seeds the data file once
    const [bare, embedded] = compare(
      [
        () => timeRun(process.execPath, ['-e', '0'], env),
        () => timeRun(process.execPath, [bin, '--sandbox', 'services', 'list', '-o', 'json'], env),
      ],
      15,
    );
    console.log(`\nembedded sandbox start to first answer: ${embedded.toFixed(1)} ms; node -e 0 ${bare.toFixed(1)} ms`);
    record('subctl --sandbox services list -o json vs node -e 0', embedded, bare, 3);
  }
}
