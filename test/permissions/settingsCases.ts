/**
 * The settings cases of issue 43, run alike by Claude Code 2.1.197 (recordSettings.ts, recorded into
 * claudeSettings.json) and by agentloop (settingsRules.test.ts): Claude Code's settings files (the user's
 * `~/.claude/settings.json`, the project's `.claude/settings.json`, the local `.claude/settings.local.json`, `--settings`)
 * and its trust record (`~/.claude.json` `projects[dir].hasTrustDialogAccepted`) are written into a fresh HOME and
 * project folder, the model asks for one command, and what happened is kept: whether the command ran (its file), the
 * result's `permission_denials`, the init line's `permissionMode`, the exit code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestBody, Step } from '../support/messagesServer.js';

type Settings = { permissions: Record<string, unknown> };

export interface SettingsCase {
  name: string;
  user?: Settings;
  project?: Settings;
  local?: Settings;
  /** `--settings`: a file's text (written as settings-flag.json) or the JSON itself. */
  flag?: { file?: Settings; json?: Settings };
  trusted?: boolean;
  /** The project is a git repository (`untracked`: .claude/settings.local.json not added; `tracked`: added). */
  git?: 'untracked' | 'tracked';
  /** The command the model asks for, and the file whose presence says whether it ran. */
  command: string;
  made: string;
  /** Files of the project before the run. */
  files?: Record<string, string>;
  args?: string[];
  env?: Record<string, string>;
}

const RULES: Settings = { permissions: { deny: ['Bash(rm:*)'], allow: ['Bash(touch:*)'] } };
const settings = (permissions: Record<string, unknown>): Settings => ({ permissions });

export const CASES: SettingsCase[] = [
  // The three: a project's deny rule holds in bypass mode (the project not trusted); its allow rule only once trusted.
  { name: 'project deny in bypassPermissions, untrusted', project: RULES, command: 'rm victim.txt', made: 'victim.txt', files: { 'victim.txt': 'v' }, args: ['--permission-mode', 'bypassPermissions'], env: { IS_SANDBOX: '1' } },
  { name: 'project allow, trusted', project: RULES, trusted: true, command: 'touch made.txt', made: 'made.txt' },
  { name: 'project allow, untrusted', project: RULES, command: 'touch made.txt', made: 'made.txt' },
  // The local file's allow rules hold in a project not trusted only where git says it is the user's own (untracked).
  { name: 'local allow, untrusted', local: settings({ allow: ['Bash(touch:*)'] }), command: 'touch made.txt', made: 'made.txt' },
  { name: 'local allow, untrusted, git untracked', local: settings({ allow: ['Bash(touch:*)'] }), git: 'untracked', command: 'touch made.txt', made: 'made.txt' },
  { name: 'local allow, untrusted, git tracked', local: settings({ allow: ['Bash(touch:*)'] }), git: 'tracked', command: 'touch made.txt', made: 'made.txt' },
  { name: 'local allow, trusted', local: settings({ allow: ['Bash(touch:*)'] }), trusted: true, command: 'touch made.txt', made: 'made.txt' },
  { name: 'user allow', user: settings({ allow: ['Bash(touch:*)'] }), command: 'touch made.txt', made: 'made.txt' },
  // Deny wins over allow whichever file each is in.
  { name: 'user allow, project deny', user: settings({ allow: ['Bash(touch:*)'] }), project: settings({ deny: ['Bash(touch:*)'] }), command: 'touch made.txt', made: 'made.txt' },
  { name: 'local deny, user allow', user: settings({ allow: ['Bash(touch:*)'] }), local: settings({ deny: ['Bash(touch:*)'] }), command: 'touch made.txt', made: 'made.txt' },
  { name: '--settings deny, local allow', local: settings({ allow: ['Bash(touch:*)'] }), flag: { json: settings({ deny: ['Bash(touch:*)'] }) }, command: 'touch made.txt', made: 'made.txt' },
  { name: '--settings file allow', flag: { file: settings({ allow: ['Bash(touch:*)'] }) }, command: 'touch made.txt', made: 'made.txt' },
  // An ask rule is asked even when an allow rule matches: nobody to ask under -p, so denied.
  { name: 'project ask over allow, trusted', project: settings({ allow: ['Bash'], ask: ['Bash(touch:*)'] }), trusted: true, command: 'touch made.txt', made: 'made.txt' },
  // defaultMode: the nearest file's wins (--settings, local, project, user).
  { name: 'defaultMode user acceptEdits, project plan, trusted', user: settings({ defaultMode: 'acceptEdits' }), project: settings({ defaultMode: 'plan' }), trusted: true, command: 'touch made.txt', made: 'made.txt' },
  { name: 'defaultMode project plan, local acceptEdits, trusted', project: settings({ defaultMode: 'plan' }), local: settings({ defaultMode: 'acceptEdits' }), trusted: true, command: 'touch made.txt', made: 'made.txt' },
  { name: 'defaultMode local plan, --settings acceptEdits', local: settings({ defaultMode: 'plan' }), flag: { json: settings({ defaultMode: 'acceptEdits' }) }, command: 'touch made.txt', made: 'made.txt' },
  { name: 'defaultMode project acceptEdits, untrusted', project: settings({ defaultMode: 'acceptEdits' }), command: 'touch made.txt', made: 'made.txt' },
  { name: 'defaultMode flag --permission-mode over settings', user: settings({ defaultMode: 'acceptEdits' }), args: ['--permission-mode', 'plan'], command: 'touch made.txt', made: 'made.txt' },
  // bypassPermissions from a settings file, as root without IS_SANDBOX (the root rule) and with it.
  { name: 'defaultMode bypassPermissions in user settings, IS_SANDBOX', user: settings({ defaultMode: 'bypassPermissions' }), command: 'touch made.txt', made: 'made.txt', env: { IS_SANDBOX: '1' } },
  { name: 'defaultMode bypassPermissions in user settings, no IS_SANDBOX', user: settings({ defaultMode: 'bypassPermissions' }), command: 'touch made.txt', made: 'made.txt' },
  // --setting-sources: the files left out are not read.
  { name: '--setting-sources user leaves the project deny out', project: settings({ deny: ['Bash(touch:*)'] }), user: settings({ allow: ['Bash(touch:*)'] }), args: ['--setting-sources', 'user'], command: 'touch made.txt', made: 'made.txt' },
  { name: '--setting-sources project,local leaves the user allow out', user: settings({ allow: ['Bash(touch:*)'] }), args: ['--setting-sources', 'project,local'], command: 'touch made.txt', made: 'made.txt' },
  // additionalDirectories widen acceptEdits.
  { name: 'additionalDirectories with acceptEdits, untrusted', local: settings({ additionalDirectories: ['../other'], defaultMode: 'acceptEdits' }), command: 'touch ../other/made.txt', made: '../other/made.txt' },
  { name: 'additionalDirectories with acceptEdits, trusted', project: settings({ additionalDirectories: ['../other'], defaultMode: 'acceptEdits' }), trusted: true, command: 'touch ../other/made.txt', made: '../other/made.txt' },
  { name: 'additionalDirectories of user settings, untrusted', user: settings({ additionalDirectories: ['../other'], defaultMode: 'acceptEdits' }), command: 'touch ../other/made.txt', made: '../other/made.txt' },
];

/** What a case's run did. */
export interface Outcome {
  ran: boolean;
  denials: number;
  permissionMode: string | null;
  exitCode: number | null;
}

/**
 * A fresh HOME and project folder (a sibling `other` folder too) in `base`, with the case's files written. agentloop's
 * are outside /tmp, which its contained commands see as a private folder of their own (test/support/scratch.ts).
 */
export function setUp(c: SettingsCase, base = tmpdir()): { home: string; dir: string; flagArgs: string[] } {
  const root = mkdtempSync(join(base, 'settings-case-'));
  const home = join(root, 'home');
  const dir = join(root, 'project');
  for (const d of [home, dir, join(root, 'other'), join(home, '.claude'), join(dir, '.claude')]) mkdirSync(d, { recursive: true });
  const json = (path: string, value: unknown) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  if (c.user) json(join(home, '.claude', 'settings.json'), c.user);
  if (c.project) json(join(dir, '.claude', 'settings.json'), c.project);
  if (c.local) json(join(dir, '.claude', 'settings.local.json'), c.local);
  json(join(home, '.claude.json'), { projects: { [dir]: { hasTrustDialogAccepted: c.trusted === true } } });
  for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(join(dir, name), text);
  if (c.git) execFileSync('git', ['init', '-q', dir]);
  if (c.git === 'tracked') execFileSync('git', ['-C', dir, 'add', '.claude/settings.local.json']);
  const flagArgs: string[] = [];
  if (c.flag?.file) {
    json(join(root, 'settings-flag.json'), c.flag.file);
    flagArgs.push('--settings', join(root, 'settings-flag.json'));
  }
  if (c.flag?.json) flagArgs.push('--settings', JSON.stringify(c.flag.json));
  return { home, dir, flagArgs };
}

/** Whether the case's command took effect: its file was made, or (rm) is gone. */
export function ranIn(c: SettingsCase, dir: string): boolean {
  const there = existsSync(join(dir, c.made));
  return c.command.startsWith('rm ') ? !there : there;
}

/** The model's steps: the command (as the tool the request offers, `Bash` or agentloop's `bash`), then an answer. */
export function stepsFor(c: SettingsCase): Step[] {
  const step: Step = (body: RequestBody) => {
    const tools = (body.tools ?? []).map((t) => (t as { name?: string }).name);
    const name = tools.includes('Bash') ? 'Bash' : tools.includes('bash') ? 'bash' : null;
    const answered = JSON.stringify(body.messages).includes('tool_result');
    if (name === null || answered) return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
    return { content: [{ type: 'tool_use', id: 'toolu_1', name, input: { command: c.command } }], stop_reason: 'tool_use' };
  };
  return Array.from({ length: 12 }, () => step);
}

/** The outcome from a run's stream-json stdout, exit code and the project folder. */
export function outcomeOf(c: SettingsCase, dir: string, stdout: string, exitCode: number | null): Outcome {
  const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  const init = lines.find((l) => l.type === 'system' && l.subtype === 'init');
  const result = lines.find((l) => l.type === 'result');
  const denials = Array.isArray(result?.permission_denials) ? result.permission_denials.length : 0;
  return { ran: ranIn(c, dir), denials, permissionMode: typeof init?.permissionMode === 'string' ? init.permissionMode : null, exitCode };
}

/** The first line on stderr, the case's folders named as `<project>` and `<home>`. */
export function firstLine(stderr: string, home: string, dir: string): string {
  const line = stderr.trim().split('\n')[0] ?? '';
  return line.split(dir).join('<project>').split(home).join('<home>');
}

/** The arguments of a case's -p run (stream-json, so the init line tells the mode). */
export function argsOf(c: SettingsCase, flagArgs: string[]): string[] {
  return ['-p', 'go', '--output-format', 'stream-json', '--verbose', ...flagArgs, ...(c.args ?? [])];
}
