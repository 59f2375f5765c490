/**
 * The catalog as a file: keys sorted, entries sorted by code, no server ids, counts or dates,
 * so that two exports of the same catalog are the same bytes but for the header line.
 */
import { stringify } from 'yaml';
import { sortedCatalog, type Catalog, type Kind } from './model.js';

/** The header's first line; the round trip compares exports without it. */
const HEADER_PREFIX = '# subctl catalog export:';

function catalogDocument(c: Catalog, kinds: readonly Kind[]): Record<string, unknown> {
  const sorted = sortedCatalog(c);
  const doc: Record<string, unknown> = {};
  for (const k of [...kinds].sort()) doc[k] = sorted[k];
  return doc;
}

/** YAML with a header comment naming the platform and the time; JSON (which has no comments) without. */
export function exportText(c: Catalog, kinds: readonly Kind[], format: 'yaml' | 'json', header: { platform: string; at: Date }): string {
  const doc = catalogDocument(c, kinds);
  if (format === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  const platform = JSON.stringify(header.platform);
  const lines = [
    `${HEADER_PREFIX} platform ${platform} at ${header.at.toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    '# Keep this file in git: `subctl catalog diff -f FILE` shows drift (exit 9), `subctl catalog apply -f FILE` brings the platform to match it.',
  ];
  return `${lines.join('\n')}\n${stringify(doc, { lineWidth: 0, sortMapEntries: true })}`;
}
