// The command line as shipped: src/cli/main.ts and everything it loads, bundled by esbuild into
// dist/cli/ (main.js, the file `bin` names, over tsc's; the parts a command loads later in
// dist/cli/chunks/). One file per part instead of hundreds: the SDK alone is over 400 modules, and a
// fresh process spends more time finding and compiling them than anything else before its first
// request (`npx tsx bench/imports.ts`). The library (dist/index.js) stays unbundled.
// Packages that read files of their own at run time (WASM grammars, a worker, a native addon) are left outside.
import { readFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// The Anthropic SDK's modules see src/anthropic/sdkGlobals.ts's `Headers` and `FormData` for the globals (a binding of
// the module's own shadows a global): the globals are undici's, and their first touch loads all of undici (20 ms and
// 2 MB of a fresh process, for requests the loop sends through Node's http: src/anthropic/httpFetch.ts).
const SDK_GLOBALS = fileURLToPath(new URL('../src/anthropic/sdkGlobals.ts', import.meta.url));
const SHADOWED = ['Headers', 'FormData'];
const sdkGlobals = {
  name: 'sdk-globals',
  setup(build) {
    build.onLoad({ filter: /[\\/]@anthropic-ai[\\/]sdk[\\/].*\.mjs$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      const names = SHADOWED.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
      if (names.length === 0) return undefined;
      return { contents: `import { ${names.join(', ')} } from ${JSON.stringify(SDK_GLOBALS)};\n${text}`, loader: 'js', resolveDir: dirname(path) };
    });
  },
};

const out = new URL('../dist/cli/', import.meta.url);
rmSync(new URL('chunks/', out), { recursive: true, force: true });
rmSync(new URL('main.js.map', out), { force: true }); // tsc's map of the file the bundle replaces
await build({
  entryPoints: [new URL('../src/cli/main.ts', import.meta.url).pathname],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: out.pathname,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['web-tree-sitter', 'tree-sitter-bash', 'elkjs', '@restatedev/*', 'fs-native-extensions'],
  // CommonJS packages inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __agentloopRequire } from 'node:module'; const require = __agentloopRequire(import.meta.url);" },
  plugins: [sdkGlobals],
  logLevel: 'warning',
});
