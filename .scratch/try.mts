import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMistake } from '../src/mistakes/run.ts';
import { MISTAKE_NAMES } from '../src/mistakes/names.ts';
const dir = mkdtempSync(join(tmpdir(), 'mk-'));
writeFileSync(join(dir, 'a.txt'), 'a'); writeFileSync(join(dir, 'b.txt'), 'b');
for (const name of MISTAKE_NAMES) {
  const r = await runMistake(name, { cwd: dir, home: join(dir, '.home') });
  const s = (d: typeof r.correct) => ({ exit: d.exitReason, text: d.text.slice(0, 80), err: d.error, nreq: d.requests.length, refused: d.refused && { i: d.refused.index, v: d.refused.verdict }, cmds: d.commands, next: d.next });
  console.log(name, JSON.stringify({ mistaken: s(r.mistaken), correct: s(r.correct) }, null, 1));
}
