/**
 * `--jq EXPR`: jq's own language over the JSON a command prints, by jq itself compiled to
 * WebAssembly (the jq-web package, which ships jq.wasm). Loaded only when the flag is given: the
 * module and its WebAssembly are slow to load, a cost no other command pays.
 */
import { UsageError } from '../api/errors.js';
import { builtin } from '../builtin.js';

/** The bundle's own require (CommonJS), else one made for the ES module build (tests). */
function localRequire(): NodeJS.Require {
  if (typeof require === 'function' && typeof require.resolve === 'function') return require;
  return builtin('node:module').createRequire(import.meta.url ?? __filename);
}

interface JqRuntime {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}

/** What jq-web throws: jq's exit status (3 a compile error, 5 a run-time one) and its stderr. */
interface JqFailure {
  exitCode?: number;
  stderr?: string;
  message?: string;
}

let runtime: Promise<JqRuntime> | undefined;

async function loadJq(): Promise<JqRuntime> {
  // jq-web's export is a promise; import() would resolve its namespace as a thenable, so it is
  // required (it stays outside the bundle, beside its jq.wasm).
  runtime ??= Promise.resolve().then(() => localRequire()('jq-web') as Promise<JqRuntime>);
  return runtime;
}

/** jq's own words, without the wrapper the check adds, one line each. */
function jqMessage(e: JqFailure, expr: string, wrapper = ''): string {
  const text = (e.stderr || e.message || String(e)).replace(/^Non-zero exit code: \d+\n/, '').trim();
  return (wrapper ? text.split(wrapper + expr).join(expr) : text).replace(/\s+$/gm, '');
}

/**
 * Compiles EXPR without running it (`empty | EXPR` never evaluates EXPR), so that a mistyped
 * expression is refused before any request is sent: exit 2, with jq's own message.
 */
export async function checkJq(expr: string): Promise<void> {
  if (expr.trim() === '') throw new UsageError("--jq needs an expression, e.g. --jq '.[].service_code'");
  const jq = await loadJq();
  const wrapper = 'empty | ';
  try {
    jq.raw('null', wrapper + expr, ['-n']);
  } catch (e) {
    throw new UsageError(`--jq: ${jqMessage(e as JqFailure, expr, wrapper)}`, {
      hint: "the expression is jq's language: https://jqlang.org/manual/",
    });
  }
}

/**
 * Runs EXPR over `json`, the text the command printed (one JSON document, or one a line with
 * -o ndjson: jq reads them in turn), and returns jq's output. Strings print raw (as `jq -r`
 * and gh's --jq do), so `--jq '.[].service_code'` gives one bare code a line.
 *
 * A run-time error of the expression (`.name` of an array) is exit 2 too: the expression is the
 * user's input. The command itself has run by then, which the message says.
 */
export async function applyJq(json: string, expr: string, compact: boolean): Promise<string> {
  const jq = await loadJq();
  try {
    // jq-web gives undefined, not '', when the expression outputs nothing (`.[]` of an empty list).
    const out = jq.raw(json, expr, compact ? ['-r', '-c'] : ['-r']) ?? '';
    return out === '' || out.endsWith('\n') ? out : `${out}\n`;
  } catch (e) {
    throw new UsageError(`--jq: ${jqMessage(e as JqFailure, expr)}`, {
      hint: 'the command itself ran; only its output could not be filtered (`-o json` without --jq shows what the expression reads)',
    });
  }
}
