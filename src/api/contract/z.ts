/**
 * The parts of zod the contract uses, imported by name: `import { z } from 'zod'` pulls the
 * whole library (every locale) into the bundle; named imports let the bundler keep only what is
 * used. Types come from zod as usual.
 */
import type * as Z from 'zod';
import { array, boolean, enum as enumOf, looseObject, number, object, preprocess, record, string, union, unknown } from 'zod';

export const z = { array, boolean, enum: enumOf, looseObject, number, object, preprocess, record, string, union, unknown };

// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace z {
  export type ZodType<O = unknown, I = unknown> = Z.ZodType<O, I>;
  export type ZodObject<S extends Z.ZodRawShape = Z.ZodRawShape> = Z.ZodObject<S>;
  export type ZodRawShape = Z.ZodRawShape;
  export type ZodString = Z.ZodString;
  export type ZodOptional<T extends Z.core.SomeType> = Z.ZodOptional<T>;
  export type ZodNullable<T extends Z.core.SomeType> = Z.ZodNullable<T>;
  export type input<T> = Z.input<T>;
  export type output<T> = Z.output<T>;
}
