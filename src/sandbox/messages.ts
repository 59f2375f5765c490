/**
 * The sandbox's validation messages in the words the specification gives the platform's
 * (admin-area.md point 5: "When no custom message exists, the validation library's default
 * messages apply (Required; Expected X received Y; String must contain at most N character(s);
 * Invalid enum value)"): the platform's validation library words them as zod 3 did, the contract
 * is written with zod 4, whose defaults read otherwise ("Invalid input: expected string, received
 * undefined"). A customizer for zod's parse: the schemas' own messages (a date's "Invalid date:
 * expected YYYY-MM-DD") take precedence over it, as zod gives them. Only the sandbox answers with
 * these; the command line words its own checks as it always has.
 */
import type { core } from 'zod';

/** zod 3's name of a value's type in "Expected X, received Y". */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isNaN(v) ? 'nan' : 'number';
  return typeof v;
}

const quoted = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v));

type Issue = core.$ZodRawIssue & { input?: unknown };

/** zod 3's words for a bound: `String must contain at most 50 character(s)`, `Number must be less than or equal to 100`. */
function sizeMessage(i: Record<string, unknown>, bound: string, count: string, compare: string): string | undefined {
  if (i.origin === 'string') return `String must contain ${i.exact ? 'exactly' : count} ${bound} character(s)`;
  if (i.origin === 'array') return `Array must contain ${i.exact ? 'exactly' : count} ${bound} element(s)`;
  if (i.origin === 'number') return `Number must be ${compare} ${i.inclusive ? 'or equal to ' : ''}${bound}`;
  return undefined;
}

/** The zod 3 default message of an issue; undefined leaves zod's own. */
export function platformMessage(issue: Issue): string | undefined {
  const i = issue as Issue & Record<string, unknown>;
  switch (i.code) {
    case 'invalid_type': {
      if (i.input === undefined) return 'Required';
      if (i.expected === 'int' && typeof i.input === 'number') return 'Expected integer, received float';
      return `Expected ${i.expected === 'int' ? 'integer' : String(i.expected)}, received ${typeName(i.input)}`;
    }
    case 'too_big':
      return sizeMessage(i, String(i.maximum), 'at most', 'less than');
    case 'too_small':
      return sizeMessage(i, String(i.minimum), 'at least', 'greater than');
    case 'invalid_value':
      if (i.input === undefined) return 'Required';
      return `Invalid enum value. Expected ${(i.values as unknown[]).map(quoted).join(' | ')}, received ${quoted(i.input)}`;
    case 'invalid_format':
      return i.format === 'regex' ? 'Invalid' : `Invalid ${String(i.format)}`;
    case 'invalid_union':
    case 'custom':
      return 'Invalid input';
    case 'unrecognized_keys':
      return `Unrecognized key(s) in object: ${(i.keys as string[]).map(quoted).join(', ')}`;
    case 'not_multiple_of':
      return `Number must be a multiple of ${String(i.divisor)}`;
    default:
      return undefined;
  }
}
