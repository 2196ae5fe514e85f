/**
 * Re-measuring some benchmarks into BENCHMARKS.md (`npm run bench -- --only=durable --update`): the rows and sections
 * of this run replace those of the same number and heading in the file, everything else stays, and the Machine
 * section gets a line saying what was re-measured, when, at which load and commit (the rest still comes from the run
 * its table describes).
 */

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
      const markers = /(\n<!--[^\n]*-->)+\s*$/.exec(text)?.[0].trim();
      const replaced = (fresh.get(heading) as string).trimEnd();
      out.push(`${replaced}\n\n${markers ? `${markers}\n` : ''}`);
    } else {
      out.push(text);
    }
  }
  return out.join('');
}
