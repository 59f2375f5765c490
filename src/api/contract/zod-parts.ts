/**
 * The parts of zod the contract uses, imported by name: `import { z } from 'zod'` pulls the
 * whole library (every locale, ~760 KB) into the bundle; named imports let the bundler keep only
 * what is used (~200 KB). z.ts loads this module the first time a schema is built.
 */
export { array, boolean, enum, looseObject, number, object, preprocess, record, string, union, unknown } from 'zod';
