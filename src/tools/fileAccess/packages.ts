/**
 * The file tools' packages, loaded at their first use instead of with the tools: `ignore` (path rules, ignore files),
 * `minimatch` (Glob's and Grep's globs) and `diff` (Write's and Edit's patches), about 100 kB of code. A run that calls
 * no file tool and has no path rule never loads them, and a fresh CLI process does not compile them before its first
 * request (test/cli/startupLoads.process.test.ts keeps them off that path). Synchronous, as their callers are: each is
 * required once, by its CommonJS build, from where this module lies (so the CLI's bundle leaves them out). Their
 * require (~14 ms) is done while the run's first model call is under way, unless a tool is called first.
 */
import { createRequire } from 'node:module';
import type { Ignore, Options as IgnoreOptions } from 'ignore';
import type { Minimatch, MinimatchOptions } from 'minimatch';
import type { StructuredPatchOptionsNonabortable, StructuredPatch } from 'diff';

const load = createRequire(import.meta.url);
const packages: { ignore?: (options?: IgnoreOptions) => Ignore; minimatch?: typeof Minimatch; diff?: typeof import('diff') } = {};

const ignorePackage = () => (packages.ignore ??= (load('ignore') as { default: (options?: IgnoreOptions) => Ignore }).default);
const minimatchPackage = () => (packages.minimatch ??= (load('minimatch') as typeof import('minimatch')).Minimatch);
const diffPackage = () => (packages.diff ??= load('diff') as typeof import('diff'));

/** A new gitignore matcher (the `ignore` package). */
export function ignore(options?: IgnoreOptions): Ignore {
  return ignorePackage()(options);
}

/** A compiled glob (minimatch's `Minimatch`). */
export function minimatch(pattern: string, options: MinimatchOptions): Minimatch {
  return new (minimatchPackage())(pattern, options);
}

/** The hunks from `before` to `after` (diff's `structuredPatch`). */
export function structuredPatch(path: string, before: string, after: string, options: StructuredPatchOptionsNonabortable): StructuredPatch {
  return diffPackage().structuredPatch(path, path, before, after, undefined, undefined, options);
}

/** All three loaded now (`prepare` of the file tools, while the model thinks: ./fileTools.ts). */
export function loadFilePackages(): void {
  ignorePackage();
  minimatchPackage();
  diffPackage();
}
