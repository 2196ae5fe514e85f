/**
 * Summarises V8 CPU profiles (`node --cpu-prof`): self time by where the code lives (a package under node_modules, a
 * folder of dist/ or src/, Node's internals, the garbage collector, idle), and the functions with the most self time.
 * Several profiles of the same command are averaged.
 *
 *   node --cpu-prof --cpu-prof-interval 100 --cpu-prof-dir=/tmp/prof dist/cli/main.js -p ...   (a few times)
 *   npx tsx bench/profileSummary.ts /tmp/prof [top]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: `xstate`, `@anthropic-ai/sdk`, `dist/session`, `node:internal`, `(garbage collector)`. */
export function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const project = /.*\/(dist|src|bench|test)\/([^/]+)\//.exec(url); // the last such folder of the path
  if (project) return `${project[1]}/${project[2]}`;
  return url.replace(/^file:\/\//, '');
}

export interface ProfileSummary {
  profiles: number;
  /** Wall ms from the profile's start to its end, averaged. */
  wallMs: number;
  byPlace: Array<{ place: string; ms: number }>;
  byFunction: Array<{ name: string; place: string; ms: number }>;
}

export function summarizeProfiles(paths: string[], top = 25): ProfileSummary {
  const places = new Map<string, number>();
  const functions = new Map<string, { name: string; place: string; ms: number }>();
  let wall = 0;
  for (const path of paths) {
    const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
    wall += (profile.endTime - profile.startTime) / 1000;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      if (!node) return;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      const { functionName, url, lineNumber } = node.callFrame;
      const place = placeOf(url, functionName);
      places.set(place, (places.get(place) ?? 0) + ms);
      const key = `${functionName || '(anonymous)'} ${url}:${lineNumber + 1}`;
      const entry = functions.get(key) ?? { name: `${functionName || '(anonymous)'} (${url.split('/').slice(-2).join('/')}:${lineNumber + 1})`, place, ms: 0 };
      entry.ms += ms;
      functions.set(key, entry);
    });
  }
  const n = paths.length;
  return {
    profiles: n,
    wallMs: wall / n,
    byPlace: [...places].map(([place, ms]) => ({ place, ms: ms / n })).sort((a, b) => b.ms - a.ms),
    byFunction: [...functions.values()].map((f) => ({ ...f, ms: f.ms / n })).sort((a, b) => b.ms - a.ms).slice(0, top),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2];
  if (!target) throw new Error('usage: tsx bench/profileSummary.ts DIR_OR_FILE [top]');
  const paths = statSync(target).isDirectory()
    ? readdirSync(target).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(target, f))
    : [target];
  const s = summarizeProfiles(paths, Number(process.argv[3] ?? 25));
  console.log(`${s.profiles} profile(s), ${s.wallMs.toFixed(1)} ms each on average\n\nself time by place (ms):`);
  for (const p of s.byPlace.filter((x) => x.ms >= 0.5)) console.log(`  ${p.ms.toFixed(1).padStart(8)}  ${p.place}`);
  console.log('\nfunctions with the most self time (ms):');
  for (const f of s.byFunction) console.log(`  ${f.ms.toFixed(1).padStart(8)}  ${f.name}  [${f.place}]`);
}
