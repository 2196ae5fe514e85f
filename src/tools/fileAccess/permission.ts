/**
 * The permission side of a file tool (the tool contract's `permission`): how a rule `Read(pattern)`, `Edit(pattern)`,
 * `Write(pattern)` matches a call, whether a call edits only inside the allowed folders (acceptEdits), and the rule
 * that would allow it. A path is matched as given and as its real path: a deny rule covers a call when either form
 * is covered, an allow rule only when both are (a link inside an allowed folder that leads out is not allowed).
 */
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isWithin } from '../bash/run/hidden.js';
import { forms } from './guard.js';
import { checkPathSpecifier, patternCovers, rootedPattern } from './pathRules.js';
import { resolvePath, shownPath } from './paths.js';
import type { PermissionUpdate, ToolContext, ToolPermission } from '../../core/tool.js';

export interface PathPermissionOptions {
  /** The rule's tool name: `Read`, `Edit`, `Write`. */
  tool: string;
  /** The path the call acts on (a file, or the folder a search starts from); undefined: the working directory. */
  pathOf(input: unknown): string | undefined;
  /** The names of other tools whose rules apply to it too (ToolPermission.ruleNames): Write ['Edit'], Glob/Grep ['Read']. */
  ruleNames?: readonly string[];
  /**
   * Whether the path is a folder searched (Glob, Grep): a deny rule then also covers the call when it covers what is in
   * the folder (`Read(secret/**)` denies a Grep of `secret`, as Claude Code 2.1.197 does).
   */
  searches?: boolean;
  /** Whether the call writes (then `isEditWithin` is given). */
  edits: boolean;
  /** The working directory the tools were made for (for `suggestRule`, which gets no `dirs`). */
  cwd: string;
  home: string;
}

/** A name standing for any entry of a searched folder. */
const SEARCHED_ENTRY = 'entry';

export function pathPermission(options: PathPermissionOptions): ToolPermission {
  const target = (input: unknown, cwd: string) => forms(resolvePath(options.pathOf(input) ?? cwd, cwd, options.home));
  const permission: ToolPermission = {
    matches(specifier, input, effect, dirs) {
      const rooted = rootedPattern(specifier, dirs, options.home);
      const paths = target(input, dirs[0] ?? options.cwd);
      if (effect === 'allow') return paths.every((p) => patternCovers(rooted, p));
      const inside = options.searches ? paths.map((p) => join(p, SEARCHED_ENTRY)) : [];
      return [...paths, ...inside].some((p) => patternCovers(rooted, p));
    },
    checkSpecifier: (specifier) => checkPathSpecifier(options.tool, specifier),
    ...(options.ruleNames ? { ruleNames: options.ruleNames } : {}),
    suggestRule(input) {
      const path = resolvePath(options.pathOf(input) ?? options.cwd, options.cwd, options.home);
      const shown = shownPath(path, options.cwd);
      // Claude Code's rules name every edit Edit (they apply to Write too) and a read outside the project by its folder.
      if (!options.edits && shown === path) return `Read(${readRuleContent(folderOf(path))})`;
      return `${options.edits ? 'Edit' : options.tool}(${shown === path ? `/${path}` : `./${shown}`})`;
    },
  };
  const within = (input: unknown, dirs: readonly string[]) => {
    const folders = dirs.flatMap((d) => [d, realOrSelf(d)]);
    return target(input, dirs[0] ?? options.cwd).every((p) => folders.some((d) => isWithin(p, d)));
  };
  const folderOf = (path: string) => (options.searches ? path : dirname(path));
  if (options.edits) permission.isEditWithin = within;
  else permission.isReadWithin = within;
  // As Claude Code 2.1.197 suggests (test/permissions/claudeSuggestions.json): an edit, the mode acceptEdits (and the
  // file's folder when it is outside); a read outside the working directories, a Read rule for its folder.
  permission.suggestions = (input, dirs) => {
    const path = resolvePath(options.pathOf(input) ?? dirs[0] ?? options.cwd, dirs[0] ?? options.cwd, options.home);
    const outside = !within(input, dirs);
    if (options.edits) {
      const mode: PermissionUpdate = { type: 'setMode', mode: 'acceptEdits', destination: 'session' };
      return outside ? [mode, { type: 'addDirectories', directories: [dirname(path)], destination: 'session' }] : [mode];
    }
    return [{ type: 'addRules', rules: [{ toolName: 'Read', ruleContent: readRuleContent(folderOf(path)) }], behavior: 'allow', destination: 'session' }];
  };
  return permission;
}

/** Claude Code's rule for what is in a folder given by its absolute path: `//abs/folder/**`. */
function readRuleContent(folder: string): string {
  return `/${folder}/**`;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/** The specifiers of the run's `Read(...)` deny rules (ToolContext.denyRules): what a search leaves out of its walk. */
export function readDenials(context: ToolContext): string[] {
  return (context.denyRules ?? []).filter((rule) => rule.tool.toLowerCase() === 'read').map((rule) => rule.specifier);
}
