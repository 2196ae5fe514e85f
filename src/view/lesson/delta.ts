/** What a request adds to the one before it, as a line (the step's sentence and the state card both say it). */
import { line, type Line } from '../texts/line.js';

/** `request 2 = request 1 + messages[1], messages[2]`, with messages rewritten or deleted since. */
export function deltaLine(r: { number: number; added: number[]; removed: number[] }): Line {
  const changed = r.added.filter((i) => r.removed.includes(i));
  const added = r.added.filter((i) => !changed.includes(i));
  const deleted = r.removed.filter((i) => !changed.includes(i));
  return line('delta', { number: r.number, prev: r.number - 1, added: indices(added), changed: indices(changed), deleted: indices(deleted) });
}

/** `messages[1], messages[2]` (empty for none). */
export const indices = (list: readonly number[]) => list.map((i) => `messages[${i}]`).join(', ');
