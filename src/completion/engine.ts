/**
 * What `subctl __complete` answers: the candidates for one word of a command line, from the
 * whole command tree (every group built, as `subctl --help` never does) and, for service codes,
 * plan codes and batch ids, from the platform through a 5-minute cache (dynamic.ts).
 *
 * Words are the shell's words, `words[0]` being the program; `cword` is the index of the word
 * under the cursor (it may be one past the end: an empty word).
 */
import type { Command, Option } from 'commander';
import type { Shell } from './scripts.js';

export interface Candidate {
  value: string;
  description?: string;
}

/** Values fetched from the platform. */
export type DynamicKind = 'services' | 'plans' | 'batches';

/** `config get|set|unset` keys (config/store.ts SETTINGS), here so completion loads no store. */
const SETTING_KEYS = ['base-url', 'output', 'timeout', 'retries'];

/** Flags and positional arguments whose values come from the platform. */
const DYNAMIC_FLAGS: Record<string, DynamicKind> = { '--service-code': 'services', '--plan-code': 'plans', '--batch-id': 'batches' };
const DYNAMIC_ARGS: Record<string, DynamicKind> = { service_code: 'services', plan_code: 'plans', batch_id: 'batches' };

/** The command-line options that choose where requests go, as Commander names them. */
export interface TargetOptions {
  profile?: string;
  baseUrl?: string;
  sandbox?: boolean;
  tokenFile?: string;
}

/** What the word under the cursor needs. */
type Need = { kind: 'static'; candidates: Candidate[] } | { kind: 'dynamic'; dynamic: DynamicKind } | { kind: 'profiles' };

export interface Analysis {
  /** The group the words name (the first command below the program), if any. */
  group?: string;
  /** The word being completed, as the engine sees it (bash's `=`/`:` pieces joined back). */
  current: string;
  /** Prepended to every value (`--plan-code=` when completing `--plan-code=PR`). */
  valuePrefix: string;
  need: Need;
  target: TargetOptions;
}

/**
 * The command tree as `subctl` builds it (src/cli/tree.ts): every group by name (with its aliases
 * and summary), and the one named `load` built in full (its verbs, flags and arguments).
 * Completing a word needs at most one group's tree, so at most one group is loaded.
 */
export async function buildTree(load?: string): Promise<Command> {
  const { buildTree: tree } = await import('../cli/tree.js');
  return tree(load);
}

/**
 * bash splits words at `=` and `:` (COMP_WORDBREAKS): `--base-url https://h` arrives as
 * `--base-url`, `https`, `:`, `//h`. Joins such pieces back; `strip` is how much of the joined
 * current word bash does not count as its current word (its candidates must omit it).
 */
export function joinBashWords(words: string[], cword: number): { words: string[]; cword: number; strip: number } {
  const out: string[] = [];
  let outCword = -1;
  let glue = false;
  const isBreak = (w: string) => /^[=:]+$/.test(w);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (out.length > 0 && (isBreak(w) || glue)) {
      out[out.length - 1] += w;
      glue = isBreak(w);
    } else {
      out.push(w);
      glue = false;
    }
    if (i === cword) outCword = out.length - 1;
    if (i >= cword) break;
  }
  if (outCword < 0) return { words: out, cword: out.length, strip: 0 };
  const joined = out[outCword];
  const own = words[cword] ?? '';
  // A word that is only breaks (`=` right after `--service-type`) is not what readline replaces:
  // it replaces the empty text after it, so the candidates are given without it (with it,
  // `--service-type=<TAB>` became `--service-type==`).
  if (isBreak(own)) return { words: out, cword: outCword, strip: joined.length };
  return { words: out, cword: outCword, strip: joined.endsWith(own) ? joined.length - own.length : 0 };
}

function findOption(cmd: Command, name: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === name || x.short === name);
    if (o) return o;
  }
  return undefined;
}

function findCommand(cmd: Command, name: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/** Visible options of `cmd` and its ancestors (global options work at every level), long names. */
function flagsOf(cmd: Command): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.options) {
      if (o.hidden) continue;
      const name = o.long ?? o.short;
      if (!name || seen.has(name)) continue;
      seen.add(name);
      out.push({ value: name, description: o.description || undefined });
    }
  }
  out.push({ value: '--help', description: 'show help' });
  return out;
}

function subcommandsOf(cmd: Command): Candidate[] {
  const out: Candidate[] = [];
  for (const c of cmd.commands) {
    if ((c as unknown as { _hidden?: boolean })._hidden) continue;
    out.push({ value: c.name(), description: c.description() || undefined });
    for (const a of c.aliases()) out.push({ value: a, description: `alias of ${c.name()}` });
  }
  return out;
}

const BOOL_VALUES = ['true', 'false'];

/** `one of TIME_BASED|USAGE_BASED|HYBRID, required` (verbs.ts) or `one of table|json|ndjson|csv (env ...)` -> the values. */
function enumValues(o: Option): string[] | undefined {
  if (o.argChoices && o.argChoices.length) return [...o.argChoices];
  const m = /^(?:one of )?([A-Za-z0-9_.-]+(?:\|[A-Za-z0-9_.-]+)+)(?=$|[\s,;)])/.exec(o.description ?? '');
  return m ? m[1].split('|') : undefined;
}

function valuesFor(o: Option): Need {
  const dyn = o.long ? DYNAMIC_FLAGS[o.long] : undefined;
  if (dyn) return { kind: 'dynamic', dynamic: dyn };
  if (o.long === '--profile') return { kind: 'profiles' };
  const values = enumValues(o) ?? (o.optional && / \[bool\]$/.test(o.flags) ? BOOL_VALUES : undefined);
  return { kind: 'static', candidates: (values ?? []).map((v) => ({ value: v })) };
}

const TARGET_FLAGS: Record<string, keyof TargetOptions> = { '--profile': 'profile', '--base-url': 'baseUrl', '--token-file': 'tokenFile' };

/** Finds the command the words name and what the word under the cursor needs. */
export function analyze(program: Command, words: string[], cword: number): Analysis {
  let cmd = program;
  let positionals = 0;
  let literal = false;
  const target: TargetOptions = {};
  let pending: Option | undefined;
  let group: string | undefined;
  for (let i = 1; i < cword && i < words.length; i++) {
    const w = words[i];
    if (!literal && w === '--') {
      literal = true;
      continue;
    }
    if (!literal && w.startsWith('-') && w !== '-') {
      const eq = w.startsWith('--') ? w.indexOf('=') : -1;
      const name = eq > 0 ? w.slice(0, eq) : w;
      const o = findOption(cmd, name);
      let value: string | undefined = eq > 0 ? w.slice(eq + 1) : undefined;
      if (o && eq < 0 && (o.required || o.optional)) {
        const next = words[i + 1];
        if (i + 1 === cword) {
          pending = o;
          break;
        }
        if (o.required || (next !== undefined && BOOL_VALUES.concat(['yes', 'no', '1', '0', 'on', 'off']).includes(next.toLowerCase()))) {
          value = next;
          i++;
        }
      }
      if (o?.long === '--sandbox') target.sandbox = true;
      const key = o?.long ? TARGET_FLAGS[o.long] : undefined;
      if (key && value !== undefined) (target as Record<string, unknown>)[key] = value;
      continue;
    }
    const sub = positionals === 0 ? findCommand(cmd, w) : undefined;
    if (sub) {
      if (cmd === program) group = sub.name();
      cmd = sub;
      continue;
    }
    positionals++;
  }

  const current = words[cword] ?? '';
  const result = (need: Need, valuePrefix = ''): Analysis => ({ group, current, valuePrefix, need, target });

  if (pending) {
    // `--is-active [bool]` may be followed by another flag instead of its value.
    if (pending.optional && current.startsWith('-')) return result({ kind: 'static', candidates: flagsOf(cmd) });
    return result(valuesFor(pending));
  }
  if (!literal && current.startsWith('--') && current.includes('=')) {
    const name = current.slice(0, current.indexOf('='));
    const o = findOption(cmd, name);
    if (o && (o.required || o.optional)) return result(valuesFor(o), `${name}=`);
    return result({ kind: 'static', candidates: [] });
  }
  if (!literal && current.startsWith('-')) return result({ kind: 'static', candidates: flagsOf(cmd) });
  if (cmd.commands.length > 0 && positionals === 0) return result({ kind: 'static', candidates: subcommandsOf(cmd) });
  const args = cmd.registeredArguments;
  const slot = args[positionals] ?? (args.length && args[args.length - 1].variadic ? args[args.length - 1] : undefined);
  if (slot) {
    // `config use <name>`: the profiles; `config get|set|unset <key>`: the settings.
    if (cmd.parent?.name() === 'config') {
      if (cmd.name() === 'use' && slot.name() === 'name') return result({ kind: 'profiles' });
      if (slot.name() === 'key') return result({ kind: 'static', candidates: SETTING_KEYS.map((k) => ({ value: k })) });
    }
    // `service_id|service_code` (the id or the code): the codes are what can be completed.
    const dyn = slot
      .name()
      .split('|')
      .map((n) => DYNAMIC_ARGS[n])
      .find((d) => d !== undefined);
    return result(dyn ? { kind: 'dynamic', dynamic: dyn } : { kind: 'static', candidates: [] });
  }
  // Nothing positional left: the flags are what can come next.
  return result({ kind: 'static', candidates: current === '' && cmd !== program ? flagsOf(cmd) : [] });
}

/** Keeps the candidates that start with `current` (case-insensitively when none does exactly). */
export function filterCandidates(candidates: Candidate[], current: string): Candidate[] {
  const seen = new Set<string>();
  const unique = candidates.filter((c) => (seen.has(c.value) ? false : (seen.add(c.value), true)));
  const exact = unique.filter((c) => c.value.startsWith(current));
  if (exact.length || current === '') return exact;
  const lower = current.toLowerCase();
  return unique.filter((c) => c.value.toLowerCase().startsWith(lower));
}

/** One line per candidate: the value (bash), or `value<TAB>description` (zsh, fish). */
export function formatCandidates(candidates: Candidate[], shell: Shell): string {
  const clean = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();
  return candidates
    .map((c) => (shell !== 'bash' && c.description ? `${clean(c.value)}\t${clean(c.description)}` : clean(c.value)))
    .filter((l) => l !== '')
    .map((l) => `${l}\n`)
    .join('');
}
