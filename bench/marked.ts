/** A section of BENCHMARKS.md that a benchmark of its own writes between `<!-- NAME:begin ... -->` and `<!-- NAME:end -->`. */

/** The section `name` of `file`, markers included, or '' (what `npm run bench` keeps when it rewrites the file). */
export function markedSection(file: string, name: string): string {
  const start = file.indexOf(`<!-- ${name}:begin`);
  const end = file.indexOf(`<!-- ${name}:end -->`);
  return start >= 0 && end > start ? `${file.slice(start, end + `<!-- ${name}:end -->`.length)}\n` : '';
}

/** `file` with its section `name` replaced by `section` (markers included), or `section` appended. */
export function replaceMarked(file: string, name: string, section: string): string {
  const old = markedSection(file, name).trimEnd();
  return old ? file.replace(old, () => section.trim()) : `${file.trimEnd()}\n\n${section.trim()}\n`;
}
