/**
 * Every generated page, by its path in the repository: docs/commands/*.md, man/*.1 and the topic
 * pages (docs/configuration.md, docs/exit-codes.md ...). `npm run docs` writes them
 * (src/docs/write.ts); tests/docs/reference.test.ts fails when the committed files differ.
 */
import { posix } from 'node:path';
import { TOPIC_NAMES } from '../cli/topic-names.js';
import { TOPICS, topicMarkdown } from '../cli/topics.js';
import { groupManPage, mainManPage } from './man.js';
import { groupPage, indexPage } from './markdown.js';
import { readReference } from './model.js';

/** The directories whose every file is generated: a file there that is not written is stale. */
export const GENERATED_DIRS = ['docs/commands', 'man'];

export async function renderAll(): Promise<Map<string, string>> {
  const r = await readReference();
  const files = new Map<string, string>();
  const topics = TOPIC_NAMES.map((name) => ({ name, title: TOPICS[name].title, page: posix.relative('commands', TOPICS[name].page) }));
  files.set('docs/commands/README.md', indexPage(r, topics));
  for (const g of r.groups) {
    files.set(`docs/commands/${g.name}.md`, groupPage(g));
    files.set(`man/subctl-${g.name}.1`, groupManPage(g, r));
  }
  files.set('man/subctl.1', mainManPage(r));
  for (const name of TOPIC_NAMES) files.set(`docs/${TOPICS[name].page}`, topicMarkdown(name));
  return files;
}
