/**
 * zod for the contract, loaded the first time a schema is built. A command that validates with
 * the contract's manifest (fast.ts) builds no schema, so it never evaluates zod (about 1 ms of
 * its start): the bundle holds zod-parts.ts behind a lazy module wrapper, and `require` runs it
 * on first use. Under vitest, which runs the TypeScript sources, tests/support/zod-setup.ts hands
 * the module over through a global instead. Types come from zod as usual.
 */
import type * as Z from 'zod';
import type * as Parts from './zod-parts.js';

declare const require: (id: string) => unknown;
let parts: typeof Parts | undefined;
function zod(): typeof Parts {
  return (parts ??= ((globalThis as Record<symbol, unknown>)[Symbol.for('subctl.zod-parts')] as typeof Parts | undefined) ?? (require('./zod-parts.js') as typeof Parts));
}

type Fn = (...a: unknown[]) => unknown;
const later = <K extends keyof typeof Parts>(k: K): (typeof Parts)[K] => ((...a: unknown[]) => (zod()[k] as unknown as Fn)(...a)) as unknown as (typeof Parts)[K];

export const z = {
  array: later('array'),
  boolean: later('boolean'),
  enum: later('enum'),
  looseObject: later('looseObject'),
  number: later('number'),
  object: later('object'),
  preprocess: later('preprocess'),
  record: later('record'),
  string: later('string'),
  union: later('union'),
  unknown: later('unknown'),
};

// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace z {
  export type ZodType<O = unknown, I = unknown> = Z.ZodType<O, I>;
  export type ZodObject<S extends Z.ZodRawShape = Z.ZodRawShape> = Z.ZodObject<S>;
  export type ZodRawShape = Z.ZodRawShape;
  export type ZodString = Z.ZodString;
  export type ZodOptional<T extends Z.core.SomeType> = Z.ZodOptional<T>;
  export type ZodNullable<T extends Z.core.SomeType> = Z.ZodNullable<T>;
  export type ZodError = Z.ZodError;
  export type input<T> = Z.input<T>;
  export type output<T> = Z.output<T>;
  export type infer<T> = Z.infer<T>;
}
