/**
 * Stdin that is a terminal is never read by a -p run (tmux gives the CLI a real pseudo-terminal): with a prompt the
 * run starts at once, without one it is a usage error at once. A CLI that read the terminal would wait for a key
 * (or for the grace period, set here far past the waits) and time the test out.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CLI, SELF } from '../support/cli.js';
import { openCliProject, type CliProject } from '../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../support/tmux.js';

let project: CliProject;
let pane: TmuxPane | undefined;
beforeEach(async () => {
  project = await openCliProject('tty');
});
afterEach(async () => {
  await pane?.close();
  pane = undefined;
  await project.close();
});

async function inTerminal(args: string[]): Promise<TmuxPane> {
  const cli = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  pane = await openTmux(`${cli}; echo "[exit $?]"; sleep 60`, {
    cwd: project.dir,
    env: { ...project.env, AGENTLOOP_STDIN_WAIT_MS: '600000' },
  });
  return pane;
}

it('-p "PROMPT" in a terminal runs at once, without reading the terminal', async () => {
  project.server.enqueue({ content: [{ type: 'text', text: 'answered' }], stop_reason: 'end_turn' });
  const screen = await (await inTerminal(['-p', 'hello'])).waitFor('[exit ', 30_000);
  expect(screen).toContain('answered');
  expect(screen).toContain('[exit 0]');
  expect(screen).not.toContain('nothing came on stdin');
});

it('-p alone in a terminal is a usage error at once', async () => {
  const screen = await (await inTerminal(['-p'])).waitFor('[exit ', 30_000);
  expect(screen).toContain('agentloop: -p needs a prompt');
  expect(screen).toContain(`see ${SELF} --help`);
  expect(screen).toContain('[exit 2]');
  expect(project.server.requests).toHaveLength(0);
});
