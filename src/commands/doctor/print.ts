/** Prints the doctor's checks: a line a check (and a `fix:` line) on a terminal, or a list under `-o`. */
import type { Ctx } from '../../cli/context.js';
import { cutMessage, terminalSafe } from '../../output/terminal-safe.js';
import type { Check, Status } from './types.js';

export async function printChecks(ctx: Ctx, checks: Check[]): Promise<void> {
  const format = ctx.globals.output;
  if (format !== 'table') {
    const { printList } = await import('../../output/index.js');
    await printList(checks as unknown as Array<Record<string, unknown>>, {
      format,
      fields: ctx.globals.fields,
      columns: ['check', 'status', 'detail', 'fix'],
      io: ctx.io,
      noColor: ctx.globals.noColor,
    });
    return;
  }
  const color = ctx.color('stdout');
  const paint = (s: Status, text: string) =>
    !color
      ? text
      : s === 'ok'
        ? `\u001b[32m${text}\u001b[39m`
        : s === 'warn'
          ? `\u001b[33m${text}\u001b[39m`
          : `\u001b[31m${text}\u001b[39m`;
  const lines: string[] = [];
  for (const c of checks) {
    // A detail may quote the server (an error's message): never raw to a terminal.
    lines.push(`${paint(c.status, c.status.padEnd(4))}  ${c.check}: ${terminalSafe(cutMessage(c.detail))}`);
    if (c.fix) lines.push(`      fix: ${terminalSafe(c.fix)}`);
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  if (failed || warned) ctx.note(`${failed} failed, ${warned} warning${warned === 1 ? '' : 's'}`);
}
