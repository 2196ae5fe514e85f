/**
 * `npm run docs:flags`: writes the table of every flag, walked from the option table (src/cli/commandLine/options.ts), into the
 * docs page that holds the markers below (test/cli/commandLine/optionTable.process.test.ts fails while the page and the table differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { flagTableBlocks, FLAG_TABLE_PAGES, withFlagTable } from '../test/support/flagTable.js';

for (const page of FLAG_TABLE_PAGES) {
  const text = readFileSync(page, 'utf8');
  if (flagTableBlocks(text).length === 0) continue;
  const updated = withFlagTable(text);
  if (updated !== text) writeFileSync(page, updated);
  console.log(`${page}: ${updated === text ? 'up to date' : 'flag table written'}`);
}
