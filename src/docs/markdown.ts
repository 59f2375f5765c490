/**
 * The reference as Markdown: docs/commands/README.md (the groups, the global options, the help
 * topics) and docs/commands/<group>.md (each verb: what it does, usage, examples, the endpoint it
 * calls, its flags with their types in words, the fields of a list).
 */
import type { CommandDoc, FlagDoc, GroupDoc, Reference } from './model.js';

/** Table cell text: a pipe would end the cell. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A summary as a sentence: a capital first, a full stop last. */
const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

function flagTable(head: string, flags: FlagDoc[]): string[] {
  if (!flags.length) return [];
  return [
    `| ${head} | type and meaning |`,
    '|---|---|',
    ...flags.map((f) => `| \`${cell(f.flags)}\` | ${cell(f.description) || ' '} |`),
    '',
  ];
}

function commandSection(c: CommandDoc): string[] {
  const out = [`## subctl ${c.path}`, ''];
  if (c.description) out.push(`${sentence(c.description)}`, '');
  if (c.aliases.length) out.push(`Alias: ${c.aliases.map((a) => `\`${a}\``).join(', ')}.`, '');
  out.push('```', c.usage, '```', '');
  if (c.examples.length) out.push('Examples:', '', '```sh', ...c.examples, '```', '');
  if (c.endpoints.length) out.push(`Calls: ${c.endpoints.map((e) => e.replace(/^(.*?)( \(with .*\))?$/, '`$1`$2')).join(', ')}.`, '');
  out.push(...flagTable('argument', c.args), ...flagTable('flag', c.flags));
  if (c.fields?.length) out.push(`Fields for \`--fields\`: ${c.fields.map((f) => `\`${f}\``).join(', ')}.`, '');
  return out;
}

export function groupPage(g: GroupDoc): string {
  const out = [`# subctl ${g.name}`, '', sentence(g.summary), ''];
  if (g.aliases.length) out.push(`Alias: ${g.aliases.map((a) => `\`${a}\``).join(', ')}.`, '');
  out.push(
    'Generated from the command tree by `npm run docs`; every command also takes the [global options](README.md#global-options).',
    '',
  );
  for (const c of g.commands) out.push(...commandSection(c));
  return `${out.join('\n').trimEnd()}\n`;
}

export function indexPage(r: Reference, topics: Array<{ name: string; title: string; page: string }>): string {
  const out = [
    '# subctl command reference',
    '',
    `${r.summary} (version ${r.version}).`,
    '',
    'Generated from the command tree by `npm run docs`. `subctl <group> <verb> --help` shows the same on a terminal.',
    '',
  ];
  out.push(
    '## Groups',
    '',
    '| group | what it does |',
    '|---|---|',
    ...r.groups.map((g) => `| [\`${g.name}\`](${g.name}.md) | ${cell(g.summary)} |`),
    '',
  );
  out.push('## Global options', '', 'Every command takes these, before or after its verb.', '', ...flagTable('option', r.globals));
  out.push('## Help topics', '', ...topics.map((t) => `- [\`subctl help ${t.name}\`](${t.page}): ${t.title}`), '');
  return `${out.join('\n').trimEnd()}\n`;
}
