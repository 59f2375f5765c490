/**
 * Reading a catalog file (YAML, or JSON, which the YAML parser reads too) and checking it before
 * anything is sent: every entry against the contract's create rules (lengths, enums, numbers),
 * unknown keys, duplicate codes, and, once the platform is read, links that name a service or a
 * plan that is neither in the file nor on the platform. Every problem names the file, the line
 * and the column (the `yaml` package's node ranges), and all of them are reported at once.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import { validateInput } from '../api/client.js';
import { servicesCreate } from '../api/contract/admin-services.js';
import { plansCreate } from '../api/contract/admin-plans.js';
import { servicePlansCreate } from '../api/contract/admin-service-plans.js';
import { rolesCreate } from '../api/contract/user-accounts.js';
import type { AnyEndpoint } from '../api/contract/common.js';
import { UsageError, ValidationError } from '../api/errors.js';
import { emptyCatalog, keyOf, KINDS, labelOf, SPECS, type Catalog, type Entry, type Kind } from './model.js';

export interface FileProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** Where an entry's nodes are, for the problems found after parsing (dangling links). */
interface Located {
  kind: Kind;
  entry: Entry;
  node: YAMLMap;
}

export interface CatalogFile {
  path: string;
  /** The file's bytes as read: the run name is made from them. */
  text: string;
  catalog: Catalog;
  /** Kinds the file has a section for: a kind it leaves out is not managed (never pruned). */
  kinds: Set<Kind>;
  entries: Located[];
  position(node: Node | undefined): { line: number; column: number };
}

/** The create endpoint whose body rules each entry follows. */
const RULES: Record<Kind, () => AnyEndpoint> = {
  services: () => servicesCreate,
  plans: () => plansCreate,
  links: () => servicePlansCreate,
  roles: () => rolesCreate,
};

/** Thrown with every problem of a file: exit 2, nothing sent. */
export class CatalogFileError extends UsageError {
  constructor(readonly problems: FileProblem[]) {
    const lines = problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`);
    super(
      `the catalog file has ${problems.length === 1 ? 'an error' : `${problems.length} errors`}; nothing was sent:\n  ${lines.join('\n  ')}`,
      {
        details: problems,
        hint: 'fix the file and run the command again (`subctl catalog export` writes a file the platform matches)',
      },
    );
  }
}

/** Reads and checks `path`; throws CatalogFileError listing every problem. */
export function readCatalogFile(path: string): CatalogFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the catalog file ${path}: ${(e as Error).message}`);
  }
  return parseCatalog(path, text);
}

export function parseCatalog(path: string, text: string): CatalogFile {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  const problems: FileProblem[] = [];
  const position = (node: Node | undefined) => {
    const p = lc.linePos(node?.range?.[0] ?? 0);
    return { line: p.line, column: p.col };
  };
  const at = (node: Node | undefined, message: string) => problems.push({ file: path, ...position(node), message });
  for (const e of doc.errors) {
    const p = lc.linePos(e.pos[0]);
    problems.push({ file: path, line: p.line, column: p.col, message: e.message.split('\n')[0] });
  }
  const file: CatalogFile = { path, text, catalog: emptyCatalog(), kinds: new Set(), entries: [], position };
  if (problems.length) throw new CatalogFileError(problems);
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return file;
  if (!isMap(root)) {
    at(root as Node, 'expected a mapping with services, plans, links and roles');
    throw new CatalogFileError(problems);
  }
  for (const pair of root.items as Pair<Node, Node>[]) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!(KINDS as readonly string[]).includes(name)) {
      at(pair.key ?? undefined, `unknown key '${name}': a catalog has services, plans, links and roles`);
      continue;
    }
    const kind = name as Kind;
    file.kinds.add(kind);
    const seq = pair.value;
    if (seq === null || (isScalar(seq) && seq.value === null)) continue;
    if (!isSeq(seq)) {
      at(seq ?? pair.key ?? undefined, `${kind}: expected a list of ${SPECS[kind].noun}s`);
      continue;
    }
    const seen = new Map<string, Node>();
    seq.items.forEach((item, i) => {
      const where = `${kind}[${i}]`;
      if (!isMap(item)) {
        at(item as Node, `${where}: expected a mapping of ${SPECS[kind].noun} fields`);
        return;
      }
      const entry = checkEntry(kind, item as YAMLMap, where, at);
      if (!entry) return;
      const key = keyOf(kind, entry);
      const first = seen.get(key);
      const keyNode = (item as YAMLMap).get(SPECS[kind].keyFields[0], true) as Node | undefined;
      if (first) {
        at(keyNode ?? item, `${where}: duplicate ${SPECS[kind].noun} ${labelOf(kind, entry)} (first at line ${position(first).line})`);
        return;
      }
      seen.set(key, keyNode ?? item);
      file.catalog[kind].push(entry);
      file.entries.push({ kind, entry, node: item as YAMLMap });
    });
  }
  if (problems.length) throw new CatalogFileError(problems);
  return file;
}

/** One entry: unknown keys, then the contract's rules; undefined when it has a problem. */
function checkEntry(kind: Kind, map: YAMLMap, where: string, at: (n: Node | undefined, m: string) => void): Entry | undefined {
  const spec = SPECS[kind];
  const raw: Record<string, unknown> = {};
  const nodes = new Map<string, Node>();
  let bad = false;
  for (const pair of map.items as Pair<Node, Node>[]) {
    const k = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!(k in spec.fields)) {
      at(pair.key ?? map, `${where}: unknown key '${k}' (a ${spec.noun} has ${Object.keys(spec.fields).sort().join(', ')})`);
      bad = true;
      continue;
    }
    const v = pair.value;
    if (v !== null && !isScalar(v)) {
      at(v, `${where}.${k}: expected a single value`);
      bad = true;
      continue;
    }
    raw[k] = v === null ? null : v.value;
    nodes.set(k, (v ?? pair.key) as Node);
  }
  if (bad) return undefined;
  if (kind === 'roles' && raw.is_system_role === true) {
    // A system role is listed by name only: the platform's own, never changed by a file.
    const extra = Object.keys(raw).filter((k) => k !== 'role_name' && k !== 'is_system_role');
    for (const k of extra) at(nodes.get(k), `${where}.${k}: a system role is listed by role_name only; its fields cannot be set`);
    if (typeof raw.role_name !== 'string') at(map, `${where}.role_name: required: expected string`);
    return extra.length || typeof raw.role_name !== 'string' ? undefined : { role_name: raw.role_name, is_system_role: true };
  }
  const body: Record<string, unknown> = { ...raw };
  const own: string[] = [];
  for (const k of Object.keys(body)) {
    // Fields the create endpoint does not take, checked here: they travel in an update.
    if (!(k in (RULES[kind]().body?.shape ?? {}))) {
      own.push(k);
      delete body[k];
    }
  }
  let ok = true;
  for (const k of own) {
    const type = spec.fields[k];
    if (k === 'is_system_role' && raw[k] !== false) {
      // true was handled above: anything else here is not a flag.
      at(nodes.get(k), `${where}.${k}: expected true or false, got ${JSON.stringify(raw[k])}`);
      ok = false;
    } else if (k !== 'is_system_role' && type === 'boolean' && typeof raw[k] !== 'boolean') {
      at(nodes.get(k), `${where}.${k}: expected true or false, got ${JSON.stringify(raw[k])}`);
      ok = false;
    }
  }
  // The fields given are checked here; the fields a create needs, once the platform says
  // which entries are new (`missingForCreate`): an entry that exists may name only what it sets.
  const problems = contractProblems(kind, body).filter((p) => p.field.split('.')[0] in body || spec.keyFields.includes(p.field));
  for (const p of problems) at(nodes.get(p.field.split('.')[0]) ?? map, `${where}.${p.field}: ${p.message}`);
  if (problems.length || !ok) return undefined;
  const entry: Entry = {};
  for (const [k, v] of Object.entries(raw))
    if (v !== null && v !== undefined && k !== 'is_system_role') entry[k] = v as string | number | boolean;
  return entry;
}

/** The contract's problems with an entry as a create body. */
function contractProblems(kind: Kind, body: Record<string, unknown>): Array<{ field: string; message: string }> {
  try {
    validateInput(RULES[kind](), { body });
    return [];
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    return e.problems;
  }
}

/** Entries the platform does not have yet (`isNew`) that leave out a field their create needs. */
export function missingForCreate(file: CatalogFile, isNew: (kind: Kind, entry: Entry) => boolean): FileProblem[] {
  const out: FileProblem[] = [];
  for (const { kind, entry, node } of file.entries) {
    if (entry.is_system_role === true || !isNew(kind, entry)) continue;
    const body = Object.fromEntries(Object.entries(entry).filter(([k]) => k in (RULES[kind]().body?.shape ?? {})));
    for (const p of contractProblems(kind, body)) {
      out.push({
        file: file.path,
        ...file.position(node),
        message: `${SPECS[kind].noun} ${labelOf(kind, entry)} is not on the platform, and creating it needs ${p.field}: ${p.message}`,
      });
    }
  }
  return out;
}

/**
 * Links naming a service or plan that is neither in the file nor on the platform (`platform`:
 * the keys there; with --prune, entries the file leaves out go, so only the file's count).
 */
export function danglingLinks(file: CatalogFile, platform: { services: Set<string>; plans: Set<string> }): FileProblem[] {
  const inFile = {
    services: new Set(file.catalog.services.map((e) => keyOf('services', e))),
    plans: new Set(file.catalog.plans.map((e) => keyOf('plans', e))),
  };
  const problems: FileProblem[] = [];
  for (const { kind, entry, node } of file.entries) {
    if (kind !== 'links') continue;
    const s = String(entry.service_code).toLowerCase();
    const p = String(entry.plan_code).toLowerCase();
    if (!inFile.services.has(s) && !platform.services.has(s)) {
      problems.push({
        file: file.path,
        ...file.position(node.get('service_code', true) as Node),
        message: `link ${labelOf('links', entry)}: service ${String(entry.service_code)} is neither in the file nor on the platform`,
      });
    }
    if (!inFile.plans.has(p) && !platform.plans.has(p)) {
      problems.push({
        file: file.path,
        ...file.position(node.get('plan_code', true) as Node),
        message: `link ${labelOf('links', entry)}: plan ${String(entry.plan_code)} is neither in the file nor on the platform`,
      });
    }
  }
  return problems;
}
