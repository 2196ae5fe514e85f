/** Where the docs hold the generated flag table (between two markers), and how it is written there. */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { flagTable } from '../../src/cli/commandLine/help.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const START = '<!-- flag table: generated from src/cli/commandLine/options.ts by `npm run docs:flags` -->';
export const END = '<!-- end of the flag table -->';

/** The README and every page of docs/. */
export const FLAG_TABLE_PAGES = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];

/** The text between each pair of markers. */
export function flagTableBlocks(text: string): string[] {
  const blocks: string[] = [];
  let at = text.indexOf(START);
  while (at >= 0) {
    const end = text.indexOf(END, at);
    if (end < 0) throw new Error(`${START} without ${END}`);
    blocks.push(text.slice(at + START.length, end).trim());
    at = text.indexOf(START, end);
  }
  return blocks;
}

/** `text` with the table between its markers. */
export function withFlagTable(text: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END, start);
  return `${text.slice(0, start + START.length)}\n${flagTable()}\n${text.slice(end)}`;
}
