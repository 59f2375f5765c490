/** Words of a command line read before (or without) Commander: the group and verb, -o, --jq. */
import { Command, type Option } from 'commander';
import { addGlobalOptions } from './globals.js';

/**
 * The group and verb words of a command line as Commander will read them: the first two words
 * that are neither options nor the values of global options (`subctl -o json services list`).
 * `verb` is left out when an option Commander may read differently comes between the two;
 * `at` is the group word's index in `argv`.
 */
export function groupAndVerb(argv: string[], globalOptions: readonly Option[]): { group?: string; verb?: string; at?: number } {
  const takesValue = new Set<string>();
  const known = new Set<string>();
  for (const o of globalOptions) {
    for (const f of [o.long, o.short]) {
      if (!f) continue;
      known.add(f);
      if (o.required || o.optional) takesValue.add(f);
    }
  }
  let group: string | undefined;
  let at: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return { group, at };
    if (a.startsWith('-')) {
      if (group !== undefined && !known.has(a.split('=')[0])) return { group, at };
      if (takesValue.has(a)) i++;
      continue;
    }
    if (group === undefined) {
      group = a;
      at = i;
    } else return { group, verb: a, at };
  }
  return { group, at };
}

/** The value of -o/--output on a command line Commander could not parse (the last one given). */
export function outputWord(argv: string[]): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '-o' || a === '--output') out = argv[++i];
    else if (a.startsWith('--output=')) out = a.slice('--output='.length);
    else if (/^-o[^-]/.test(a)) out = a.slice(2);
  }
  return out;
}

/** --jq among the words of a command line (its errors are JSON, as with -o json). */
export function jqWord(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--jq' || a.startsWith('--jq='));
}

/** The command as typed, without flags: `services get`. */
export function commandWords(argv: string[]): string {
  const { group, verb } = groupAndVerb(argv, addGlobalOptions(new Command()).options);
  return [group, verb].filter((w) => w !== undefined).join(' ');
}
