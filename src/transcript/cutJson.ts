/**
 * Cutting the long strings of one line of JSON before it is parsed: a record of 100 MB becomes a few kilobytes of
 * JSON without ever being a 100 MB JavaScript string (reader.ts). The bytes are scanned for the quotes that open and
 * close strings (`Buffer.indexOf`, as fast as memchr); each string longer than `keep` bytes keeps its first `keep`
 * bytes (never half a UTF-8 character or half an escape) and gets `note(bytes left out)` in place of the rest; keys
 * are left whole.
 */

/** `json` with its long strings cut, or `undefined` when none is longer than `keep` bytes. */
export function cutLongStrings(json: Buffer, keep: number, note: (left: number) => string): string | undefined {
  const parts: string[] = [];
  let copied = 0;
  for (let open = json.indexOf(0x22); open !== -1; ) {
    const close = closingQuote(json, open + 1);
    if (close === -1) break; // not JSON: the parser says so
    if (close - open - 1 > keep && !isKey(json, close + 1)) {
      const stop = cutPoint(json, open + 1, open + 1 + keep);
      parts.push(json.toString('utf8', copied, stop), JSON.stringify(note(close - stop)).slice(1, -1));
      copied = close;
    }
    open = json.indexOf(0x22, close + 1);
  }
  if (parts.length === 0) return undefined;
  parts.push(json.toString('utf8', copied));
  return parts.join('');
}

/** Whether the string that ended just before `after` is an object's key (a `:` follows it). */
function isKey(json: Buffer, after: number): boolean {
  let at = after;
  while (json[at] === 0x20 || json[at] === 0x09 || json[at] === 0x0a || json[at] === 0x0d) at += 1;
  return json[at] === 0x3a;
}

/** The quote that ends the string whose contents start at `from` (one not escaped by an odd run of backslashes). */
function closingQuote(json: Buffer, from: number): number {
  for (let at = json.indexOf(0x22, from); at !== -1; at = json.indexOf(0x22, at + 1)) {
    let slashes = 0;
    while (at - 1 - slashes >= from && json[at - 1 - slashes] === 0x5c) slashes += 1;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/** `stop`, moved back to the start of a UTF-8 character or an escape (`\n`, `\u00e9`) that it would cut. */
function cutPoint(json: Buffer, start: number, stop: number): number {
  let at = stop;
  while (at > start && ((json[at] as number) & 0xc0) === 0x80) at -= 1;
  for (let back = 1; back <= 5 && at - back >= start; back++) {
    const slash = at - back;
    if (json[slash] !== 0x5c) continue;
    let run = 1;
    while (slash - run >= start && json[slash - run] === 0x5c) run += 1;
    if (run % 2 === 0) break; // an escaped backslash: no escape starts here
    const length = json[slash + 1] === 0x75 ? 6 : 2;
    return slash + length > at ? slash : at;
  }
  return at;
}
