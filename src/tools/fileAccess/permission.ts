/**
 * The permission side of a file tool (the tool contract's `permission`): how a rule `Read(pattern)`, `Edit(pattern)`,
 * `Write(pattern)` matches a call, whether a call edits only inside the allowed folders (acceptEdits), and the rule
 * that would allow it. A path is matched as given and as its real path: a deny rule covers a call when either form
 * is covered, an allow rule only when both are (a link inside an allowed folder that leads out is not allowed).
 */
import { realpathSync } from 'node:fs';
import { isWithin } from '../bash/run/hidden.js';
import { forms } from './guard.js';
import { checkPathSpecifier, patternCovers, rootedPattern } from './pathRules.js';
import { resolvePath, shownPath } from './paths.js';
import type { ToolPermission } from '../../core/tool.js';

export interface PathPermissionOptions {
  /** The rule's tool name: `Read`, `Edit`, `Write`. */
  tool: string;
  /** The path the call acts on (a file, or the folder a search starts from); undefined: the working directory. */
  pathOf(input: unknown): string | undefined;
  /** Whether the call writes (then `isEditWithin` is given). */
  edits: boolean;
  /** The working directory the tools were made for (for `suggestRule`, which gets no `dirs`). */
  cwd: string;
  home: string;
}

export function pathPermission(options: PathPermissionOptions): ToolPermission {
  const target = (input: unknown, cwd: string) => forms(resolvePath(options.pathOf(input) ?? cwd, cwd, options.home));
  const permission: ToolPermission = {
    matches(specifier, input, effect, dirs) {
      const rooted = rootedPattern(specifier, dirs, options.home);
      const paths = target(input, dirs[0] ?? options.cwd);
      return effect === 'deny' ? paths.some((p) => patternCovers(rooted, p)) : paths.every((p) => patternCovers(rooted, p));
    },
    checkSpecifier: (specifier) => checkPathSpecifier(options.tool, specifier),
    suggestRule(input) {
      const path = resolvePath(options.pathOf(input) ?? options.cwd, options.cwd, options.home);
      const shown = shownPath(path, options.cwd);
      return `${options.tool}(${shown === path ? `/${path}` : `./${shown}`})`;
    },
  };
  if (options.edits) {
    permission.isEditWithin = (input, dirs) => {
      const folders = dirs.flatMap((d) => [d, realOrSelf(d)]);
      return target(input, dirs[0] ?? options.cwd).every((p) => folders.some((d) => isWithin(p, d)));
    };
  }
  return permission;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
