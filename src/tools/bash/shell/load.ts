/**
 * Loads tree-sitter-bash (a WebAssembly grammar) into web-tree-sitter, once per process and only
 * when a command is first checked, or earlier, in the bash tool's `prepare` while the first model
 * call is under way: a process that never runs a command never pays for it. Both packages read
 * files of their own at run time, so the CLI bundle leaves them outside (scripts/build-cli.mjs).
 */
import { createRequire } from 'node:module';
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
  await Parser.init();
  const require = createRequire(import.meta.url);
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}
