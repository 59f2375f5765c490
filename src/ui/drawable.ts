/**
 * Text as the console draws it. Ink lays a line out with string-width, which (as our
 * displayWidth) gives a zero-width character standing alone (U+200B zero-width space, U+2060,
 * U+FEFF, a soft hyphen…) no column; but it cuts lines to their box with slice-ansi, which
 * gives every such character one. A line holding one then lost its last character on screen
 * (`zw a\u200bb END` drawn as `zw a​b EN`). Those characters draw nothing, so they are left out
 * of what is drawn, and every width the console computes is the width Ink draws.
 * Zero-width characters inside a grapheme (a zero-width joiner in an emoji, combining marks)
 * are kept: they are part of a character both count the same.
 */
import { displayWidth } from '../output/width.js';

const PLAIN = /^[\x20-\x7e]*$/;
let segmenter: Intl.Segmenter | undefined;

/** `drawable('zw a\u200bb') === 'zw ab'`; plain ASCII is returned as it is. */
export function drawable(s: string): string {
  if (PLAIN.test(s)) return s;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let out = '';
  for (const { segment } of segmenter.segment(s)) if (displayWidth(segment) > 0 || segment === '\n') out += segment;
  return out;
}
