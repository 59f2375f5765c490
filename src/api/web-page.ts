/**
 * Answers that are web pages: the gateways, proxies, captive portals and sign-in pages in front
 * of a platform answer in HTML (`502 Bad Gateway`, `Sign in - Corp SSO`), not in the platform's
 * JSON. A message names such a page by its title (else its first heading, else its text), never
 * by its markup, so that it stays one short line that says what answered.
 */
import { oneLine } from './redact.js';

/** Is this body markup (HTML, or XML such as an object store's error) rather than text? */
export function isMarkup(text: string, contentType: string): boolean {
  return /html|xml/i.test(contentType) || /^\s*</.test(text);
}

/** Is it a web page (as opposed to other markup)? */
export function isWebPage(text: string, contentType: string): boolean {
  return /html/i.test(contentType) || /^\s*<(!doctype\s+html|html|head|body)\b/i.test(text);
}

/** The named entities a page title commonly holds; others are left as written. */
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '\u2013',
  mdash: '\u2014',
  middot: '\u00b7',
  hellip: '\u2026',
  laquo: '\u00ab',
  raquo: '\u00bb',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]+);/gi, (all, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? all;
    const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : all;
  });
}

/** The text of a piece of markup: tags, comments, scripts and styles dropped, entities read. */
function textOf(markup: string): string {
  return oneLine(decodeEntities(markup.replace(/<[^>]*>?/g, ' ')));
}

/** Comments, scripts and styles dropped: their text is not the page's (a script may even hold `<title>`). */
function withoutCode(markup: string): string {
  return markup.replace(/<!--[\s\S]*?(?:-->|$)/g, ' ').replace(/<(script|style)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ');
}

/**
 * What a page says it is, at most `n` characters on one line: its title, else its first
 * heading, else the start of its text; '' for a page without words.
 * @example pageWords('<html><head><title>502 Bad Gateway</title>...') // '502 Bad Gateway'
 */
export function pageWords(page: string, n = 80): string {
  const markup = withoutCode(page);
  const pick = (re: RegExp) => {
    const m = re.exec(markup);
    return m ? textOf(m[1]) : '';
  };
  const words = pick(/<title\b[^>]*>([\s\S]*?)<\/title\s*>/i) || pick(/<h1\b[^>]*>([\s\S]*?)<\/h1\s*>/i) || textOf(markup);
  return words.length > n ? `${words.slice(0, n)}...` : words;
}
