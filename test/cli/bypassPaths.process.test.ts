/**
 * The root rule holds on every path to bypassPermissions (src/permissions/root.ts, the gate's): a stream-json session's
 * `set_permission_mode` as root without IS_SANDBOX is refused and the next `touch` does not run (it ran before the
 * gate owned the rule); with IS_SANDBOX=1, or as nobody, a session launched with --allow-dangerously-skip-permissions
 * switches and the command runs; one launched without a bypass flag is refused, as Claude Code refuses it. The CLI as
 * a process (as root and as nobody) against the local Messages API server. The flags' refusal is in
 * permissionDefaults.test.ts, settings files' defaultMode in settingsRules.test.ts.
 */
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { answerFromResults, bashUse } from '../support/agentServer.js';
import { startCli } from '../support/cli.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import { testUsers } from '../support/users.js';

let project: CliProject;
cliProjectPerTest('bypass-paths', (p) => (project = p));

const STREAM = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];
const lines = [
  { type: 'control_request', request_id: 'mode', request: { subtype: 'set_permission_mode', mode: 'bypassPermissions' } },
  { type: 'user', message: { role: 'user', content: 'make the file' } },
];

/** A folder of the user's own, with the sessions' home in it. */
function folderOf(prefix: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-bypass-paths-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  if (prefix.length) chownSync(dir, 65534, 65534);
  return dir;
}

async function session(prefix: string[], flags: string[], sandbox: boolean) {
  const dir = folderOf(prefix);
  const env: NodeJS.ProcessEnv = { ...project.env, AGENTLOOP_HOME: join(dir, '.home') };
  if (!sandbox) delete env.IS_SANDBOX;
  project.server.enqueue({ content: [bashUse('toolu_1', 'touch made.txt')], stop_reason: 'tool_use' }, answerFromResults);
  const input = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  const run = await startCli([...STREAM, ...flags], { cwd: dir, env, input, prefix }).done;
  const out = run.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
  const answer = out.find((l) => l.type === 'control_response')?.response as { subtype: string; error?: string };
  return { run, answer, made: existsSync(join(dir, 'made.txt')), result: out.find((l) => l.type === 'result') };
}

describe.each(testUsers())('set_permission_mode bypassPermissions as $name', ({ name, prefix, skip }) => {
  it.skipIf(skip !== undefined)('refused without a bypass flag: the next touch does not run', async () => {
    const { run, answer, made, result } = await session(prefix, [], false);
    expect(run.code, run.stderr).toBe(0);
    expect(answer).toMatchObject({ subtype: 'error', error: 'Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions' });
    expect(made).toBe(false);
    expect(result?.permission_denials).toHaveLength(1);
  });

  it.skipIf(skip !== undefined)('with --allow-dangerously-skip-permissions: refused as root outside a sandbox, taken as anyone else', async () => {
    const flags = ['--allow-dangerously-skip-permissions'];
    if (name === 'root') {
      const refused = await session(prefix, flags, false);
      expect(refused.run.code).toBe(1);
      expect(refused.made).toBe(false);
      expect(project.server.requests).toHaveLength(0);
    }
    const { run, answer, made } = await session(prefix, flags, name === 'root');
    expect(run.code, run.stderr).toBe(0);
    expect(answer).toMatchObject({ subtype: 'success', response: { mode: 'bypassPermissions' } });
    expect(made).toBe(true);
  });
});
