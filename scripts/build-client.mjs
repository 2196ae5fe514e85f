// The viewer's client: src/view/client/main.ts (and the CSS it imports) bundled by esbuild into
// dist/view/client/, beside index.html, at build time: the installed CLI needs no esbuild.
import { copyFileSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';

const out = new URL('../dist/view/client/', import.meta.url);
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [new URL('../src/view/client/main.ts', import.meta.url).pathname],
  bundle: true,
  format: 'iife',
  target: 'es2022',
  outdir: out.pathname,
  logLevel: 'warning',
});
copyFileSync(new URL('../src/view/client/index.html', import.meta.url), new URL('index.html', out));
