/**
 * A built-in module, loaded the first time it is needed rather than at start-up: `node:tls`,
 * `node:crypto`, `node:module` (which also loads Node's ES module loader) and `node:os` each
 * cost start-up time to load, and most commands use none of them.
 * @example builtin('node:crypto').randomBytes(8)
 */
interface Builtins {
  'node:crypto': typeof import('node:crypto');
  'node:https': typeof import('node:https');
  'node:module': typeof import('node:module');
  'node:os': typeof import('node:os');
  'node:readline': typeof import('node:readline');
  'node:tls': typeof import('node:tls');
  'node:zlib': typeof import('node:zlib');
}

export function builtin<K extends keyof Builtins>(name: K): Builtins[K] {
  return process.getBuiltinModule(name) as Builtins[K];
}
