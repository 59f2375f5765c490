/**
 * vitest runs the TypeScript sources, where src/api/contract/z.ts cannot `require` zod-parts.ts:
 * it is handed over here (the bundle requires it, behind a lazy module wrapper).
 */
import * as parts from '../../src/api/contract/zod-parts.js';

(globalThis as Record<symbol, unknown>)[Symbol.for('subctl.zod-parts')] = parts;
