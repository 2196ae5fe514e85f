// The simulator (issue 39): src/view/client/simulator.ts bundled by esbuild with the real machine, its CSS and the
// machine's diagram (laid out by build-machine-view.mjs) inlined into one HTML file, dist/view/simulator.html: it
// runs from file:// or any static host, with no server and no request (its CSP allows none).
import { readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// run/actors.ts loads the list of built-in tools (and with it the real bash and file tools, which need node:) only
// when a call names a tool the run does not offer, for the note after 'No such tool available: X'. The page offers
// the stand-in bash alone: that note is left out there.
const noBuiltInTools = {
  name: 'no-built-in-tools',
  setup(b) {
    b.onResolve({ filter: /\/defaultTools\.js$/ }, () => ({ path: 'defaultTools', namespace: 'sim-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'sim-stub' }, () => ({ contents: "export const unavailableToolNote = () => () => '';", loader: 'js' }));
  },
};
const src = (p) => new URL(`../src/view/client/${p}`, import.meta.url);
const result = await build({
  entryPoints: [src('simulator.ts').pathname],
  bundle: true,
  format: 'iife',
  target: 'es2022',
  write: false,
  outdir: '/out',
  minify: true,
  charset: 'utf8',
  logLevel: 'warning',
  plugins: [noBuiltInTools],
});
const output = (ext) => result.outputFiles.find((f) => f.path.endsWith(ext)).text;
const shipped = JSON.parse(readFileSync(new URL('../dist/view/client/machine.json', import.meta.url), 'utf8'));
// Inline text must not end its element: `</` is written `<\/` (the same string in JS and JSON).
const inline = (text) => text.replace(/<\/(script|style)/gi, '<\\/$1');
const config = inline(JSON.stringify({ view: shipped.view, graph: shipped.graph }));
// The timeline's markup is the viewer's own (index.html, between its views markers): one copy of it.
const viewer = readFileSync(src('index.html'), 'utf8');
const views = viewer.slice(viewer.indexOf('<main id="views">'), viewer.indexOf('<!-- /views -->'));
if (!views.startsWith('<main id="views">') || !views.trimEnd().endsWith('</main>')) throw new Error('build-simulator: index.html lost its views markers');
const page = readFileSync(src('simulator.html'), 'utf8')
  .replace(/<!--VIEWS:[^>]*-->/, () => views.trimEnd())
  .replace('/*CSS*/', () => inline(output('.css')))
  .replace('<script type="application/json" id="agentloop-sim">{}</script>', () => `<script type="application/json" id="agentloop-sim">${config}</script>`)
  .replace('<script>/*JS*/</script>', () => `<script>${inline(output('.js'))}</script>`);
writeFileSync(new URL('../dist/view/simulator.html', import.meta.url), page);
