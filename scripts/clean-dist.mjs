// Before tsup: an empty dist/ (the two builds of tsup.config.ts run at once, so neither may clean it).
import { rmSync } from 'node:fs';
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
