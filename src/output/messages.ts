/**
 * Messages for people, on stderr (stdout carries results only).
 */
import { useColor, type IO } from '../io.js';
import { ansi } from './style.js';

function line(text: string): string {
  return text.endsWith('\n') ? text : text + '\n';
}

/** A note (hidden rows, the sandbox in use ...): `note(io, 'Showing 50 of 1,203 services: use --all')`. Nothing with `-q`. */
export function note(io: IO, text: string, opts: { quiet?: boolean } = {}): void {
  if (opts.quiet) return;
  io.stderr.write(line(text));
}

/** `warning: <text>` on stderr, the prefix yellow when stderr takes colour. Shown even with `-q`. */
export function warn(io: IO, text: string, opts: { noColor?: boolean } = {}): void {
  const prefix = useColor(io, 'stderr', opts.noColor ?? false) ? ansi.yellow('warning:') : 'warning:';
  io.stderr.write(line(`${prefix} ${text}`));
}
