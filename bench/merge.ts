/**
 * Re-measuring some benchmarks into BENCHMARKS.md (`npm run bench -- --only=durable --update`): the rows and sections
 * of this run replace those of the same number and heading in the file, everything else stays, and the Machine
 * section gets a line saying what was re-measured, when, at which load and commit (the rest still comes from the run
 * its table describes). A section several benchmarks write (4: the parallel one's tables, the start-up one's first
 * tools) is made of parts, each begun by `<!-- part:NAME -->`: only the parts of this run replace theirs.
 */

/** The line that begins the part of a section one benchmark writes. */
export const partMark = (name: string): string => `<!-- part:${name} -->`;

/** A section's text before its first part, and its parts by name (each with its mark, ending in a blank line). */
function partsOf(section: string): { head: string; parts: Map<string, string> } {
  const pieces = section.split(/^(?=<!-- part:[\w-]+ -->$)/m);
  const name = (piece: string) => /^<!-- part:([\w-]+) -->$/m.exec(piece.split('\n')[0] ?? '')?.[1];
  const head = name(pieces[0] ?? '') === undefined ? (pieces.shift() ?? '') : '';
  return { head, parts: new Map(pieces.map((piece) => [name(piece) as string, `${piece.trimEnd()}\n\n`])) };
}

/**
 * The section `existing` with what `fresh` has of it: the parts of `fresh` in place of theirs (new ones after), the
 * other parts kept; the whole of `fresh` when either has no parts.
 */
export function mergeSection(existing: string, fresh: string): string {
  const old = partsOf(existing);
  const now = partsOf(fresh);
  if (old.parts.size === 0 || now.parts.size === 0) return fresh;
  const names = [...old.parts.keys(), ...[...now.parts.keys()].filter((name) => !old.parts.has(name))];
  return `${now.head.trimEnd()}\n\n${names.map((name) => now.parts.get(name) ?? old.parts.get(name)).join('')}`;
}

/** The `## ` sections of a report, by heading (the text before the first one under ''). */
function sectionsOf(text: string): Map<string, string> {
  const parts = text.split(/^(?=## )/m);
  return new Map(parts.map((part) => [part.startsWith('## ') ? (part.split('\n')[0] as string) : '', part]));
}

/** A summary row's number (`| 7 | ...` gives `7`), or undefined for any other line. */
const rowNumber = (line: string) => /^\| (\w+) \|/.exec(line)?.[1];

/** `existing` with the summary rows and sections of `partial` (a report of some benchmarks) put in place of its own. */
export function mergeReport(existing: string, partial: string, note: string): string {
  const fresh = sectionsOf(partial);
  const freshRows = new Map(
    (fresh.get('## Summary') ?? '').split('\n').flatMap((line) => {
      const n = rowNumber(line);
      return n && n !== '#' ? [[n, line] as const] : [];
    }),
  );
  const out: string[] = [];
  for (const [heading, text] of sectionsOf(existing)) {
    if (heading === '## Summary') {
      out.push(text.split('\n').map((line) => freshRows.get(rowNumber(line) ?? '') ?? line).join('\n'));
    } else if (heading === '## Machine') {
      // A note of an earlier re-measure of the same benchmarks gives way to this one.
      const same = note.slice(0, note.indexOf(' on ') + 4);
      const kept = text.split('\n\n').filter((paragraph) => !paragraph.startsWith(same));
      out.push(`${kept.join('\n\n').trimEnd()}\n\n${note}\n\n`);
    } else if (heading !== '' && fresh.has(heading)) {
      // Markers at its end that belong to the next part (`<!-- peers:begin ... -->`) stay.
      const trailing = /(\n<!--[^\n]*-->)+\s*$/.exec(text)?.[0];
      const markers = trailing?.trim();
      const replaced = mergeSection(trailing ? text.slice(0, -trailing.length) : text, fresh.get(heading) as string).trimEnd();
      out.push(`${replaced}\n\n${markers ? `${markers}\n` : ''}`);
    } else {
      out.push(text);
    }
  }
  return out.join('');
}
