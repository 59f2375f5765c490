/**
 * Ctrl-Z in the console and in a form. The terminal is raw, so the terminal driver does not
 * stop the process itself. As vim and less do: the shell's screen (when the alternate screen
 * was in use), cursor and line discipline are given back, the process stops itself (SIGTSTP,
 * its default action: stopped until the shell's `fg`), and once it is continued it takes the
 * terminal again and draws its frame whole. Without job control (an orphaned process group)
 * the kernel drops the signal and the screen comes back at once.
 */
export const ALT_SCREEN_ON = '\u001b[?1049h\u001b[H';
export const ALT_SCREEN_OFF = '\u001b[?1049l';
/**
 * Bracketed paste (xterm's mode 2004, which tmux, screen and current terminal emulators honour),
 * on while the console or a form has the terminal: pasted text comes wrapped, and is read as
 * text (KeyReader, src/ui/keys.ts). Without it a pasted line break is Enter and the lines after
 * it run as keys (`status=Active` pasted into the filter prompt: `s` sorts, `A` opens the
 * audit, the last Enter opens a row). Off again whenever the shell has the terminal.
 */
export const PASTE_ON = '\u001b[?2004h';
export const PASTE_OFF = '\u001b[?2004l';
const SHOW_CURSOR = '\u001b[?25h';
const HIDE_CURSOR = '\u001b[?25l';

export function suspendTerminal(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  repaint: () => void,
  opts: { altScreen: boolean; stop?: () => void },
): void {
  stdout.write(PASTE_OFF + (opts.altScreen ? ALT_SCREEN_OFF : '') + SHOW_CURSOR);
  if (stdin.isTTY) stdin.setRawMode(false);
  try {
    // The stop takes effect before kill returns: the next line runs after `fg`.
    (opts.stop ?? (() => process.kill(process.pid, 'SIGTSTP')))();
  } finally {
    if (stdin.isTTY) stdin.setRawMode(true);
    stdout.write((opts.altScreen ? ALT_SCREEN_ON : '') + PASTE_ON + HIDE_CURSOR);
    refreshSize(stdout);
    repaint();
    // A terminal multiplexer may apply a resize made while stopped a moment after `fg` (tmux
    // defers a pane's new size to its next loop): asked again shortly, in case no SIGWINCH
    // brings it (it emits 'resize' only when the size changed; under load the console could be
    // left drawn at the old width).
    for (const ms of [100, 500]) setTimeout(() => refreshSize(stdout), ms).unref();
  }
}

/**
 * Takes the terminal's size as it is now. A resize while stopped never reached this process
 * (SIGWINCH goes to the foreground job, the shell then), so `columns` and `rows` are still those
 * of before Ctrl-Z, and `getWindowSize()` only returns them. Node's own SIGWINCH handler calls
 * the stream's `_refreshSize()`, which asks the terminal and emits 'resize' when the size
 * changed (Ink and the console then draw at the new size): the same call here.
 */
function refreshSize(stdout: NodeJS.WriteStream): void {
  const s = stdout as NodeJS.WriteStream & { _refreshSize?: () => void };
  if (stdout.isTTY && typeof s._refreshSize === 'function') s._refreshSize();
}

/**
 * While the console or a form holds the terminal, a hang-up (the SSH connection or the window
 * closed, `kill -HUP`) gives the terminal its modes back when it is still there, and ends the
 * process as the signal would (exit 129). Node's default would end it at once, leaving a
 * terminal still there on the alternate screen, bracketing pastes. Returns the function that
 * stops listening.
 */
export function restoreOnHangup(stdout: NodeJS.WriteStream): () => void {
  const onHangup = () => {
    try {
      stdout.write(PASTE_OFF + ALT_SCREEN_OFF + SHOW_CURSOR);
    } catch {
      // The terminal is gone: nothing to give back.
    }
    process.exit(129);
  };
  process.on('SIGHUP', onHangup);
  return () => void process.off('SIGHUP', onHangup);
}
