/**
 * The sandbox: the platform's whole API over SQLite, for newcomers, tests and benchmarks.
 */
export { startSandbox, missingHandlers, type Sandbox, type SandboxOptions } from './server.js';
export { openDatabase } from './db.js';
export { seedDatabase, resetDatabase, type SeedOptions } from './seed.js';
export { parseChaos, type ChaosOptions } from './chaos.js';
export { SEEDED_ACCOUNTS } from './schema-core.js';
