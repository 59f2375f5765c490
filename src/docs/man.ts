/**
 * The reference as man pages (roff, man macros): man/subctl.1 (the groups, global options,
 * environment, exit status) and man/subctl-<group>.1 (each verb). `man -l man/subctl-services.1`
 * reads one without installing it. No date in the title line: a page changes only when what it
 * says changes.
 */
import { TOPICS } from '../cli/topics.js';
import type { FlagDoc, GroupDoc, Reference } from './model.js';

/** Text safe in roff: backslashes, a leading dot or quote, and hyphens said as minus signs in flags. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

const bold = (s: string) => `\\fB${roff(s)}\\fR`;

function title(name: string, r: Reference, summary: string): string[] {
  return [`.TH ${name.toUpperCase()} 1 "" "subctl ${r.version}" "User Commands"`, '.SH NAME', `${roff(name)} \\- ${roff(summary)}`];
}

function flagList(flags: FlagDoc[]): string[] {
  return flags.flatMap((f) => ['.TP', bold(f.flags), roff(f.description || ' ')]);
}

function example(lines: string[]): string[] {
  return lines.length ? ['.PP', 'Examples:', '.RS', '.nf', ...lines.map(roff), '.fi', '.RE'] : [];
}

export function groupManPage(g: GroupDoc, r: Reference): string {
  const name = `subctl-${g.name}`;
  const out = [
    ...title(name, r, g.summary),
    '.SH SYNOPSIS',
    `${bold(`subctl ${g.name}`)} ${g.commands.length > 1 || g.commands[0]?.path !== g.name ? '\\fIverb\\fR ' : ''}[\\fIoptions\\fR]`,
    '.SH DESCRIPTION',
    roff(`${g.summary}.`),
  ];
  if (g.aliases.length) out.push('.PP', roff(`Alias: ${g.aliases.join(', ')}.`));
  out.push('.PP', roff('Every command also takes the global options of subctl(1).'));
  out.push('.SH COMMANDS');
  for (const c of g.commands) {
    out.push(`.SS "${roff(`subctl ${c.path}`)}"`);
    if (c.description) out.push(roff(c.description));
    out.push('.PP', '.nf', roff(c.usage), '.fi');
    if (c.endpoints.length) out.push('.PP', roff(`Calls: ${c.endpoints.join(', ')}.`));
    out.push(...example(c.examples));
    if (c.args.length || c.flags.length) out.push('.PP', 'Arguments and flags:', '.RS', ...flagList([...c.args, ...c.flags]), '.RE');
    if (c.fields?.length) out.push('.PP', roff(`Fields for --fields: ${c.fields.join(', ')}.`));
  }
  out.push('.SH SEE ALSO', 'subctl(1)');
  return `${out.join('\n')}\n`;
}

export function mainManPage(r: Reference): string {
  const out = [
    ...title('subctl', r, r.summary),
    '.SH SYNOPSIS',
    `${bold('subctl')} \\fIgroup\\fR [\\fIverb\\fR] [\\fIarguments\\fR] [\\fIoptions\\fR]`,
    '.SH DESCRIPTION',
  ];
  out.push(
    roff(
      `${r.summary}. A bare subctl on a terminal opens the interactive console. subctl help GROUP VERB shows a command's help; subctl help TOPIC a topic: environment, exit-codes, output, bulk.`,
    ),
  );
  out.push(
    '.SH COMMANDS',
    ...r.groups.flatMap((g) => ['.TP', `${bold(`subctl ${g.name}`)}`, roff(`${g.summary}; see subctl-${g.name}(1).`)]),
  );
  out.push('.SH GLOBAL OPTIONS', ...flagList(r.globals));
  const env = TOPICS.environment.blocks.find((b) => 'rows' in b);
  if (env && 'rows' in env) out.push('.SH ENVIRONMENT', ...env.rows.flatMap(([k, v]) => ['.TP', bold(k), roff(v)]));
  const codes = TOPICS['exit-codes'].blocks.find((b) => 'rows' in b);
  if (codes && 'rows' in codes) out.push('.SH EXIT STATUS', ...codes.rows.flatMap(([k, v]) => ['.TP', bold(k), roff(v)]));
  out.push('.SH SEE ALSO', r.groups.map((g) => `subctl\\-${roff(g.name)}(1)`).join(', '));
  return `${out.join('\n')}\n`;
}
