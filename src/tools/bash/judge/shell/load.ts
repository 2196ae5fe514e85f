/**
 * Loads tree-sitter-bash (a WebAssembly grammar) into web-tree-sitter, once per process and only
 * when a command is first checked, or earlier, in the bash tool's `prepare` while the first model
 * call is under way: a process that never runs a command never pays for it. Both packages read
 * files of their own at run time, so the CLI bundle leaves them outside (scripts/build-cli.mjs).
 */
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import type { Parser as TsParser } from 'web-tree-sitter';

export type { Node as SyntaxNode, Parser as TsParser } from 'web-tree-sitter';

let loading: Promise<TsParser> | undefined;
let loaded: TsParser | null = null;

/** The bash parser; loads it at the first call (about 0.1 s), then answers at once. */
export function loadShellParser(): Promise<TsParser> {
  loading ??= load().then(
    (parser) => (loaded = parser),
    (error: unknown) => {
      loading = undefined; // a later call tries again
      throw error;
    },
  );
  return loading;
}

/** The parser when it has loaded, else null (and no load is started). */
export function loadedShellParser(): TsParser | null {
  return loaded;
}

async function load(): Promise<TsParser> {
  const { Parser, Language } = await import('web-tree-sitter');
  const require = createRequire(import.meta.url);
  const wasm = require.resolve('tree-sitter-bash/tree-sitter-bash.wasm');
  const language = await baselineOnly(async () => {
    await Parser.init();
    return Language.load(wasm);
  });
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/**
 * Compiles WebAssembly with V8's baseline compiler (Liftoff) only. The grammar's lexer and parse
 * tables are a few huge functions: once they are hot, V8 tiers them up with TurboFan in the
 * background, and the main thread was then seen to stop for seconds at its next module load
 * (5.4 s here on a busy machine, bench/guard.ts). Baseline code parses a command 2-3 times slower,
 * still well under a millisecond. The flag is read when a module is compiled: it is set for the
 * grammar alone and put back (unless the process was started with it). The loop's requests load no WebAssembly of
 * their own (the SDK's client sends through Node's http, whose parser is native: anthropic/httpFetch.ts).
 */
async function baselineOnly<T>(compile: () => Promise<T>): Promise<T> {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('--liftoff-only'));
  if (given) return compile();
  v8.setFlagsFromString('--liftoff-only');
  try {
    return await compile();
  } finally {
    v8.setFlagsFromString('--no-liftoff-only');
  }
}
