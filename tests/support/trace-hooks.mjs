import { appendFileSync } from 'node:fs';

let file;
export function initialize(data) {
  file = data.file;
}
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(file, `esm ${r.url}\n`);
  return r;
}
