/**
 * How the checks (guard.ts, interactive.ts, readOnly.ts, permissions.ts) read command lines: a line of plain words with
 * plain.ts, which gives the Script the parser would (test/tools/bash/bashPlain.process.test.ts), and any other line with the bash
 * parser, waiting for it to load when it has not. So the first command of a process, often sent before the parser has
 * loaded (~0.1 s), is judged at once by the same rules when it is plain, and no plain line waits for a parse.
 */
import { loadShellParser, loadedShellParser, type TsParser } from './load.js';
import { parseScript, type ParseOptions } from './parse.js';
import { plainWordsScript } from './plain.js';
import type { Script } from './types.js';

/** Reads a command line (the checks read the scripts a line hands to `bash -c`, `eval`, `| sh` too). */
export type ReadScript = (source: string, options?: ParseOptions) => Script;

/** Thrown by the plain reader for a line that is not plain words: the check is done again with the parser. */
export class NeedsParser extends Error {
  override readonly name = 'NeedsParser';
}

let parserRead: { parser: TsParser; read: ReadScript } | undefined;

export function parserReader(parser: TsParser): ReadScript {
  if (parserRead?.parser !== parser) parserRead = { parser, read: (source, options) => parseScript(parser, source, options) };
  return parserRead.read;
}

/** The reader of plain words; throws NeedsParser for any other line. */
export const plainReader: ReadScript = (source, options) => {
  const script = plainWordsScript(source, options);
  if (script === null) throw new NeedsParser('not plain words');
  return script;
};

/**
 * The check's answer now: through the plain reader when the line is plain words (the parser would give the same Script,
 * and its first parse of a process compiles its WebAssembly, ~10-20 ms on the path of the first tool), else through the
 * parser once loaded; null when the check needs the parser and it has not loaded (its load is then started).
 */
export function checkNow<T>(check: (read: ReadScript) => T): { value: T } | null {
  try {
    return { value: check(plainReader) };
  } catch (error) {
    if (!(error instanceof NeedsParser)) throw error;
  }
  const parser = loadedShellParser();
  if (parser !== null) return { value: check(parserReader(parser)) };
  loadShellParser().catch(() => undefined); // the caller that waits gets the error
  return null;
}

/** The check's answer, at once when it can be had without the parser; rejects when the parser is needed and cannot load. */
export async function checkSoon<T>(check: (read: ReadScript) => T): Promise<T> {
  const now = checkNow(check);
  if (now !== null) return now.value;
  return check(parserReader(await loadShellParser()));
}
