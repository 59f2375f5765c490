/**
 * The help topics (`subctl help environment|exit-codes|output|bulk`): written once as blocks, shown
 * as text on a terminal (`topicText`) and written as Markdown into docs/ by the reference
 * generator (src/docs/), so that the page and the help say the same thing.
 */
import type { TopicName } from './topic-names.js';

type Block = { p: string } | { h: string } | { rows: Array<[string, string]>; head: [string, string] } | { code: string[] };

export interface Topic {
  title: string;
  /** Where the generator writes the topic's page, under docs/. */
  page: string;
  blocks: Block[];
}

export const TOPICS: Record<TopicName, Topic> = {
  environment: {
    title: 'Configuration: profiles and environment variables',
    page: 'configuration.md',
    blocks: [
      {
        p: 'A profile is a saved target: a base address, an output format, a time-out and a retry count, with its credential kept in the OS keyring (or credentials.json, 0600, where no keyring answers). `subctl auth login` creates one and signs it in; `subctl config` lists, chooses and changes them.',
      },
      {
        code: [
          'subctl auth login --base-url https://api.example.com --profile prod',
          'subctl config list',
          'subctl config use prod',
          'subctl config set timeout 30000 --profile prod',
        ],
      },
      {
        p: 'Which profile a command uses: `--profile NAME`, else SUBCTL_PROFILE, else the one `config use` chose, else `default`. A value given on the command line wins over the environment, which wins over the profile.',
      },
      { h: 'Environment variables' },
      {
        head: ['variable', 'meaning'],
        rows: [
          ['SUBCTL_PROFILE', 'the profile to use (as --profile)'],
          ['SUBCTL_BASE_URL', "the API base address (as --base-url); overrides the profile's"],
          ['SUBCTL_TOKEN', "a bearer token to send instead of the profile's sign-in (for cron and CI; never put a token in argv)"],
          ['SUBCTL_SESSION_ID', 'the X-Session-ID to send instead of the one stored by auth login --cms'],
          ['SUBCTL_OUTPUT', 'the output format: table, wide, json, ndjson or csv (as -o)'],
          ['SUBCTL_STRICT', '1: an answer that departs from the API contract is exit 6 (as --strict)'],
          ['SUBCTL_TZ', 'UTC: date-times on a terminal in UTC (as --utc); local (the default): the local zone'],
          ['SUBCTL_CONFIG_DIR', 'keep config.json, credentials, state, data and cache under this one directory'],
          [
            'XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, XDG_CACHE_HOME',
            'where the subctl directories go otherwise (absolute paths only)',
          ],
          ['SUBCTL_PAGER, PAGER', 'the pager for long output on a terminal (else less -FRX)'],
          ['NO_COLOR', 'no colour when set and not empty (as --no-color)'],
          ['FORCE_COLOR', 'colour even off a terminal (1, 2, 3), or none (0)'],
          [
            'HTTPS_PROXY, HTTP_PROXY, NO_PROXY',
            'the proxy for https and http addresses, and the hosts that bypass it (either case; lower case wins)',
          ],
          ['NODE_EXTRA_CA_CERTS', 'a PEM file of extra certificate authorities to trust (a company CA)'],
          ['SUBCTL_DEBUG', 'print the stack trace of an unexpected error (exit 1)'],
          ['SUBCTL_SANDBOX_DIALECT', 'alt: the embedded sandbox answers in its second reading of the API documents (docs/sandbox.md)'],
          ['SUBCTL_NO_CODE_CACHE', "1: compile the bundle from source, without the build's V8 code cache"],
        ],
      },
      {
        p: '`subctl doctor` checks the profile in use, its address, the network, TLS, the credential, the clock and the files, and says what to fix.',
      },
    ],
  },
  'exit-codes': {
    title: 'Exit codes',
    page: 'exit-codes.md',
    blocks: [
      {
        p: 'Every command ends with one of these codes. Errors go to stderr (with -o json or ndjson also as one JSON object); stdout carries results only.',
      },
      {
        head: ['code', 'meaning, and what a script should do'],
        rows: [
          ['0', 'success, an empty list included: go on'],
          ['1', 'unexpected error, a bug in subctl: stop and report it with the command (SUBCTL_DEBUG=1 shows the stack trace)'],
          ['2', 'usage error or invalid input, nothing was sent: fix the command line; retrying the same line fails again'],
          [
            '3',
            'not authenticated or not allowed (401, 403; `auth status` when the platform does not accept the token): sign in again (`subctl auth login`) or use an account with the right role; do not retry as is',
          ],
          ['4', 'not found (404): check the id or code; a script deleting something may treat it as already done'],
          [
            '5',
            'rejected by the server (400, 409, 422; 413, 414, 431 from it or a gateway: the request too large, nothing applied; `me access` when access is denied, `referrals validate` when the code is not valid): the message names the field or the conflict; fix the input, do not retry unchanged',
          ],
          [
            '6',
            "server error (5xx) after the retries, or an answer that is not the platform's (a gateway's or sign-in portal's web page, an empty answer to a read, a body that cannot be decoded): retry later, with a back-off",
          ],
          ['7', 'network failure or time-out after the retries: check the address and network (`subctl doctor`), then retry'],
          [
            '8',
            'a bulk run in which some rows failed and the others succeeded: read the --report file, fix those rows and run the same command again (finished rows are skipped)',
          ],
          ['9', '`catalog diff`: the platform differs from the file: review the difference, then `catalog apply` or update the file'],
          ['130', 'interrupted (Ctrl-C, SIGTERM): run the same command again; a bulk run resumes where it stopped'],
        ],
      },
    ],
  },
  output: {
    title: 'Output: formats, fields, paging',
    page: 'commands/topic-output.md',
    blocks: [
      {
        p: 'stdout carries results only; progress, notes and errors go to stderr. Choose the format with -o (or SUBCTL_OUTPUT, or `config set output`).',
      },
      {
        head: ['format', 'what it prints'],
        rows: [
          ['table', 'the default: aligned columns, fitted to a terminal; off a terminal the same columns without colour or truncation'],
          ['json', 'a list as one JSON array of its items, an object as that object, with every field the server returned'],
          ['ndjson', 'one JSON object a line, streamed as pages arrive'],
          ['csv', 'a header row then the rows, streamed; cells that a spreadsheet would run as a formula are quoted safe'],
        ],
      },
      {
        p: '--fields a,b,c prints those fields, in that order, in every format; each list names its fields in its help (`subctl services list --help`). Nested values are reached with dots (service_info.service_code).',
      },
      { p: '--jq EXPR filters JSON output with the jq language (as gh has it): `subctl services list -o json --jq ".[].service_code"`.' },
      {
        p: 'Lists print one page (--page-number, --page-size). --all streams every page; --limit N stops after N rows, whatever the page size. A list that shows fewer rows than exist says so on stderr, on a terminal, with the flag that shows the rest.',
      },
      {
        p: 'Long output on a terminal goes through a pager: SUBCTL_PAGER, else PAGER, else `less -FRX`; --no-pager prints straight to the terminal. Off a terminal there is never a pager.',
      },
      {
        code: [
          'subctl subscriptions list --status active --all -o csv > active.csv',
          'subctl users list --fields user_id,username,email -o json',
          'subctl audit list --limit 20 --fields id,username,action',
        ],
      },
    ],
  },
  bulk: {
    title: 'Bulk runs',
    page: 'commands/topic-bulk.md',
    blocks: [
      {
        p: 'Every write verb takes many rows at once: --from-csv FILE (a header of field or flag names) or --from-ndjson FILE (one JSON object a line); - reads stdin. Flags given on the command line are defaults for every row.',
      },
      {
        code: [
          'subctl subscriptions manage --from-csv actions.csv --dry-run',
          'subctl subscriptions manage --from-csv actions.csv --concurrency 8 --yes --report report.csv',
        ],
      },
      {
        p: 'Every row is checked before anything is sent; a row that does not pass is named with its line and field (exit 2). --dry-run prints every request that would be sent and sends nothing.',
      },
      {
        p: 'A bulk run is many writes at once: it asks on a terminal and needs --yes off one. --concurrency N (1 to 32, default 4) requests are in flight together.',
      },
      {
        p: 'Resuming: a journal records each finished row. Running the same command with the same input again skips the rows already done, so an interrupted or partly failed run (exit 8) is finished by running it again. --restart sends every row again; --skip-applied also skips rows another input already sent (a fixed copy of the file).',
      },
      { p: '--report FILE writes a CSV line for every row: its line, key, outcome, HTTP status, message and any created id.' },
    ],
  },
};

/** Text wrapped at `width`, each line indented by `indent`. */
function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

/** A topic as `subctl help <topic>` prints it. */
export function topicText(name: TopicName, width = 80): string {
  const t = TOPICS[name];
  const out: string[] = [t.title, ''];
  for (const b of t.blocks) {
    if ('p' in b) out.push(...wrap(b.p, width), '');
    else if ('h' in b) out.push(`${b.h}:`, '');
    else if ('code' in b) out.push(...b.code.map((l) => `  ${l}`), '');
    else {
      const left = Math.min(24, Math.max(...b.rows.map(([k]) => k.length)));
      for (const [k, v] of b.rows) {
        const body = wrap(v, width, ' '.repeat(left + 4));
        if (k.length > left) out.push(`  ${k}`, ...body);
        else out.push(`  ${k.padEnd(left)}  ${body[0]!.trimStart()}`, ...body.slice(1));
      }
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** Table cell text: a pipe would end the cell. */
const cell = (v: string) => v.replace(/\|/g, '\\|');

/** A topic as a Markdown page of docs/. */
export function topicMarkdown(name: TopicName): string {
  const t = TOPICS[name];
  const out: string[] = [`# ${t.title}`, '', `This page is \`subctl help ${name}\`.`, ''];
  for (const b of t.blocks) {
    if ('p' in b) out.push(b.p, '');
    else if ('h' in b) out.push(`## ${b.h}`, '');
    else if ('code' in b) out.push('```sh', ...b.code, '```', '');
    else
      out.push(
        `| ${b.head.join(' | ')} |`,
        '|---|---|',
        ...b.rows.map(
          ([k, v]) =>
            `| ${
              /^\d+$/.test(k)
                ? k
                : k
                    .split(', ')
                    .map((w) => `\`${w}\``)
                    .join(', ')
            } | ${cell(v)} |`,
        ),
        '',
      );
  }
  return `${out.join('\n').trimEnd()}\n`;
}
