// The command line as shipped: src/cli/main.ts and everything it loads, bundled by esbuild into
// dist/cli/ (main.js, the file `bin` names, over tsc's; the parts a command loads later in
// dist/cli/chunks/). One file per part instead of hundreds: the SDK alone is over 400 modules, and a
// fresh process spends more time finding and compiling them than anything else before its first
// request (`npx tsx bench/imports.ts`). The library (dist/index.js) stays unbundled.
// Packages that read files of their own at run time (WASM grammars, a worker, a native addon) are left outside.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

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
  logLevel: 'warning',
});
