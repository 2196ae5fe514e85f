/**
 * What agentloop writes to a terminal is shown, never interpreted: the real CLI in a real pseudo-terminal (tmux),
 * against the local Messages API server through the real SDK, with a model whose text and a tool whose command and
 * output carry escape sequences that set the window title (OSC 0 and 2, and as C1 characters), clear the screen,
 * move the cursor to draw a fake prompt, write the clipboard (OSC 52), ring the bell, rewrite a line with a lone CR
 * and reorder text (bidi overrides). The pane's title, its screen and tmux's paste buffers stay as they were (tmux
 * takes OSC 52 into a buffer here: `set-clipboard on`); the sequences show as `^[`, `M-^[`, `^G`, `^M`, `<U+202E>`.
 * As root, and again as nobody (who then owns the pane's terminal, the project and its sessions).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, RUN_EVERYTHING } from '../../support/cli.js';
import { everything } from '../../support/mcp.js';
import { openCliProject, type CliProject } from '../../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../../support/tmux.js';
import { runCliAs, testUsers, type TestUser } from '../../support/users.js';

const TIMEOUT = 60_000;
const ESC = '\x1b';
const BEL = '\x07';

/** Every trick at once, each marked with `tag` so that what shows can be told from where it came. */
function attack(tag: string): string {
  return [
    `${ESC}]0;${tag}-TITLE0${BEL}`,
    `${ESC}]2;${tag}-TITLE2${ESC}\\`,
    `${ESC}]52;c;${Buffer.from(`${tag}-CLIP`).toString('base64')}${BEL}`,
    `${ESC}[2J${ESC}[H`,
    `${ESC}[3;1H${tag}-FAKE$ `,
    `\u009b2J\u009d0;${tag}-C1TITLE\u009c`,
    `${tag}-SAFE\r${tag}-OVER`,
    `\u202e${tag}-RTL${BEL}`,
  ].join('');
}

/** How `attack(tag)` shows, as one line of the screen. */
function shownAttack(tag: string): string {
  return [
    `^[]0;${tag}-TITLE0^G`,
    `^[]2;${tag}-TITLE2^[\\`,
    `^[]52;c;${Buffer.from(`${tag}-CLIP`).toString('base64')}^G`,
    '^[[2J^[[H',
    `^[[3;1H${tag}-FAKE$ `,
    `M-^[2JM-^]0;${tag}-C1TITLEM-^\\`,
    `${tag}-SAFE^M${tag}-OVER`,
    `<U+202E>${tag}-RTL^G`,
  ].join('');
}

/** The bash command: it carries the raw sequences itself (a `:` ignores them) and prints them (printf's octal). */
function attackCommand(tag: string): string {
  const octal = [...attack(tag)].map((c) => (c.charCodeAt(0) < 0x20 || c === '\\' || c === "'" || c === '%' ? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}` : c)).join('');
  return `: '${attack(`${tag}CMD`).replace(/'/g, '')}'; printf '${octal}\\n'`;
}

let project: CliProject;
let pane: TmuxPane | undefined;
/** Who runs the pane and the CLI in the current case (testUsers()). */
let user: TestUser;
beforeEach(async (ctx) => {
  if (user.skip !== undefined) ctx.skip(user.skip);
  project = await openCliProject('terminal');
});
afterEach(async () => {
  await pane?.close();
  pane = undefined;
  await project?.close();
});

const run = promisify(execFile);

/**
 * A pane whose tmux takes OSC 52 into its buffers, and that runs `command` only once the test has looked at it;
 * `drive` plays the user meanwhile (the command's end is awaited after it).
 */
async function paneRunning(command: string, env: NodeJS.ProcessEnv, drive?: (pane: TmuxPane) => Promise<void>) {
  own();
  const p = await openTmux(`tmux wait-for go; echo BEFORE-MARK; ${command}; echo "[exit $?]"; sleep 60`, { cwd: project.dir, env, width: 120, height: 50, prefix: user.prefix });
  pane = p;
  const [program = 'tmux', ...socketArgs] = [...user.prefix, 'tmux', '-L', p.socket];
  const tmux = async (...args: string[]) => (await run(program, [...socketArgs, ...args], { env })).stdout;
  await tmux('set-option', '-g', 'set-clipboard', 'on');
  const state = async () => ({
    title: (await tmux('display-message', '-p', '-t', 'test:0.0', '#{pane_title}')).trim(),
    buffers: (await tmux('list-buffers')).trim(),
  });
  const before = await state();
  await tmux('wait-for', '-S', 'go');
  await drive?.(p);
  const screen = await p.waitFor('[exit ', 30_000);
  /** The visible screen only (no scrollback), with its colours as escape sequences (`-e`). */
  const visible = async (colours = false) => tmux('capture-pane', '-p', ...(colours ? ['-e'] : []), '-t', 'test:0.0');
  return { before, after: await state(), screen, visible };
}

/** The project and what is in it, the user's (nobody's files are its own). */
const own = () => user.owner !== undefined && execFileSync('chown', ['-R', user.owner, project.dir]);
const runCli = (args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) => (own(), runCliAs(user, args, options));

const cliLine = (args: string[]) => [process.execPath, CLI, ...args].map(shellQuote).join(' ');

/** The screen's first line is the marker printed before the CLI: nothing cleared it or drew over it. */
const firstLine = (screen: string) => screen.split('\n')[0];

describe.each(testUsers())('as $name', (who) => {
  beforeAll(() => {
    user = who;
  });

  describe('-p in text mode, with --verbose', () => {
    it("the model's answer, the tool's command and its output show their escape sequences; title, screen and buffers stay; the colours stay", async () => {
      project.server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: attackCommand('TOOL') } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: `answer ${attack('MODEL')} end` }], stop_reason: 'end_turn' },
      );
      const env = { ...project.env };
      delete env.NO_COLOR;
      const { before, after, screen, visible } = await paneRunning(cliLine(['-p', 'go', '--verbose', RUN_EVERYTHING]), env);
      expect(screen).toContain('[exit 0]');
      expect(after).toEqual(before);
      expect(before.buffers).toBe('');
      expect(firstLine(await visible())).toBe('BEFORE-MARK');
      expect(screen).toContain(`answer ${shownAttack('MODEL')} end`);
      expect(screen).toContain(`  ${shownAttack('TOOL')}`); // the output's first line, indented
      expect(screen).toContain(`$ : '${shownAttack('TOOLCMD').replace(/'/g, '')}'`);
      expect(screen).not.toMatch(/-FAKE\$ $/m);
      // agentloop's own colours: the command in cyan (SGR 36), as tmux keeps it in the cell attributes.
      expect(await visible(true)).toMatch(/\x1b\[36m\$ : /);
      // What the model was sent is the output exactly, escape sequences and all.
      const sent = JSON.stringify(project.server.requests[1]?.body?.messages);
      expect(sent).toContain(JSON.stringify(attack('TOOL')).slice(1, -1));
    }, TIMEOUT);

    it('NO_COLOR still takes the colours away', async () => {
      project.server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: attackCommand('TOOL') } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: attack('MODEL') }], stop_reason: 'end_turn' },
      );
      const { before, after, visible } = await paneRunning(cliLine(['-p', 'go', '--verbose', RUN_EVERYTHING]), { ...project.env, NO_COLOR: '1' });
      expect(after).toEqual(before);
      const coloured = await visible(true);
      expect(coloured).toContain(`$ : '`);
      expect(coloured).not.toMatch(/\x1b\[3\d/);
    }, TIMEOUT);
  });

  describe('MCP servers, in text mode with --verbose', () => {
    it("a server's tool result and a failed server's error show their escape sequences; title, screen and buffers stay", async () => {
      // A gateway in front of an http server that answers its first request with an error page carrying the attack.
      const gateway = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/plain' }).end(`bad gateway ${attack('MCPERR')}`));
      await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/mcp`;
      const config = JSON.stringify({ mcpServers: { every: everything(`terminal-${process.pid}`), gate: { type: 'http', url } } });
      project.server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__every__echo', input: { message: attack('MCP') } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      try {
        const { before, after, screen, visible } = await paneRunning(cliLine(['-p', 'go', '--verbose', '--mcp-config', config, '--allowedTools', 'mcp__every']), project.env);
        expect(screen).toContain('[exit 0]');
        expect(after).toEqual(before);
        expect(firstLine(await visible())).toBe('BEFORE-MARK');
        expect(screen).toContain(`  Echo: ${shownAttack('MCP')}`);
        expect(screen).toContain(`MCP server "gate" failed to start, its tools are left out:`);
        expect(screen).toContain(`bad gateway ${shownAttack('MCPERR')}`);
        // The model was sent the result exactly.
        expect(JSON.stringify(project.server.requests[1]?.body?.messages)).toContain(JSON.stringify(attack('MCP')).slice(1, -1));
      } finally {
        await new Promise((resolve) => gateway.close(resolve));
      }
    }, TIMEOUT);
  });

  describe('the REPL', () => {
    it("streamed text, a tool call and its output show their escape sequences; title, screen and buffers stay", async () => {
      project.server.enqueue(
        { content: [{ type: 'text', text: attack('TURN1') }, { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: attackCommand('TOOL') } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: `answer ${attack('MODEL')} end` }], stop_reason: 'end_turn' },
      );
      const { before, after, screen, visible } = await paneRunning(cliLine(['go', RUN_EVERYTHING]), project.env, async (p) => { // not about permissions: the command runs unasked
        await p.waitFor((s) => s.includes('MODEL-RTL') && s.split('\n').at(-1) === 'agentloop >>');
        await p.keys(['C-d']);
      });
      expect(screen).toContain('[exit 0]');
      expect(after).toEqual(before);
      expect(firstLine(await visible())).toBe('BEFORE-MARK');
      expect(screen).toContain(shownAttack('TURN1'));
      expect(screen).toContain(`answer ${shownAttack('MODEL')} end`);
      expect(screen).toContain(`  ${shownAttack('TOOL')}`);
    }, TIMEOUT);
  });

  describe('agentloop sessions', () => {
    it('a transcript whose id, directory and prompt hold escape sequences is listed with them shown', async () => {
      const sessions = join(project.home, 'sessions');
      mkdirSync(sessions, { recursive: true });
      const at = new Date().toISOString();
      const records = [
        { type: 'session', version: 1, id: `${ESC}]0;ID${BEL}x`, cwd: `/tmp/${attack('CWD')}`, createdAt: at, model: 'm' },
        { type: 'prompt', text: attack('PROMPT'), at },
      ];
      writeFileSync(join(sessions, 'hostile.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const { before, after, screen, visible } = await paneRunning(cliLine(['sessions']), project.env);
      expect(after).toEqual(before);
      expect(firstLine(await visible())).toBe('BEFORE-MARK');
      // A session is listed by its file's name (transcript/paths.ts: sessionIdOfPath); the header's id is not shown.
      expect(screen).toContain('hostile ');
      expect(screen).not.toContain(']0;ID');
      expect(screen).toContain(`/tmp/^[]0;CWD-TITLE0^G`);
      expect(screen).toContain('^[]0;PROMPT-TITLE0^G');
      // --output-format json keeps the data exact (JSON escapes it).
      const json = await runCli(['sessions', '--output-format', 'json'], { cwd: project.dir, env: project.env });
      expect(JSON.parse(json.stdout)[0]).toMatchObject({ id: 'hostile', firstPrompt: attack('PROMPT') });
      expect(json.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    }, TIMEOUT);
  });

  describe('error lines', () => {
    it("an API error's text shows its escape sequences on stderr; json and stream-json keep it exact, escaped by JSON", async () => {
      const message = `bad request ${attack('API')}`;
      const error = { error: { status: 400, type: 'invalid_request_error', message } };
      project.server.enqueue(error, error, error);
      const text = await runCli(['-p', 'go'], { cwd: project.dir, env: project.env });
      expect(text.code).toBe(1);
      expect(text.stderr).toContain(shownAttack('API'));
      expect(text.stderr + text.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
      // JSON escapes C0 itself; the C1 controls (U+009B is CSI) and bidi overrides it leaves raw are escaped too.
      const json = await runCli(['-p', 'go', '--output-format', 'json'], { cwd: project.dir, env: project.env });
      expect(JSON.parse(json.stdout).error).toContain(message);
      expect(json.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
      const stream = await runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose'], { cwd: project.dir, env: project.env });
      const lines = stream.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; error?: string });
      expect(lines.at(-1)?.error).toContain(message);
      expect(stream.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    }, TIMEOUT);
  });
});
