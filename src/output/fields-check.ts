/**
 * `--fields` names checked against what there is: a name that is neither a field of the contract
 * nor in the answer is a mistake (gh refuses one too), exit 2 with the fields there are, before
 * anything is printed. A list is looked at until every name has been seen, over its first 1,000
 * rows at most (a field only some rows have is no mistake); those rows are then printed as usual.
 */
import { UsageError } from '../api/errors.js';
import { getPath, isPlainObject } from './format.js';

type Row = Record<string, unknown>;

/** The rows looked at, at most, before a name is called unknown. */
const LOOK_AT = 1000;

function knownIn(name: string, contract: ReadonlySet<string>): boolean {
  return contract.has(name) || contract.has(name.split('.')[0]!);
}

function refuse(unknown: string[], contract: readonly string[], first: Row | undefined): UsageError {
  const there = [...new Set([...(first ? Object.keys(first) : []), ...contract])];
  const names = unknown.map((f) => `'${f}'`).join(', ');
  return new UsageError(
    `--fields: ${names} ${unknown.length === 1 ? 'is' : 'are'} neither in the answer nor in the contract; the fields are: ${there.join(', ') || '(none)'}`,
    {
      hint: 'dotted paths reach into objects (created_by.username); `-o json` without --fields shows every field',
    },
  );
}

/** One object: every name in it or in the contract's fields. */
export function checkObjectFields(record: Row, fields: string[], contract: readonly string[] = []): void {
  const known = new Set(contract);
  const unknown = fields.filter((f) => getPath(record, f) === undefined && !knownIn(f, known));
  if (unknown.length) throw refuse(unknown, contract, record);
}

/**
 * A list: the same rows, in order, once every name has been found in a row or in the contract;
 * a UsageError (before the first row is handed on) otherwise.
 */
export async function checkListFields(
  rows: AsyncIterable<Row> | Iterable<Row>,
  fields: string[],
  contract: readonly string[] = [],
): Promise<AsyncIterable<Row> | Iterable<Row>> {
  const known = new Set(contract);
  const missing = new Set(fields.filter((f) => !knownIn(f, known)));
  if (missing.size === 0) return rows;
  const it =
    Symbol.asyncIterator in rows ? (rows as AsyncIterable<Row>)[Symbol.asyncIterator]() : (rows as Iterable<Row>)[Symbol.iterator]();
  const held: Row[] = [];
  let ended = false;
  while (missing.size > 0 && held.length < LOOK_AT) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      break;
    }
    held.push(next.value);
    for (const f of missing) if (isPlainObject(next.value) && getPath(next.value, f) !== undefined) missing.delete(f);
  }
  // An empty answer without a contract to go by says nothing of the names.
  if (missing.size > 0 && (held.length > 0 || contract.length > 0)) {
    await it.return?.();
    throw refuse([...missing], contract, held[0]);
  }
  return (async function* () {
    try {
      yield* held;
      if (ended) return;
      for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
    } finally {
      await it.return?.();
    }
  })();
}
