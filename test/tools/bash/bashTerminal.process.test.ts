/**
 * No way to the user's terminal (issue 23, item 3). The CLI runs in a tmux pane, as a user runs it, as root and as an
 * unprivileged user (who then owns the pane's terminal). Its bash tool runs a command that lists every terminal it
 * can open (every /dev/pts/*, the console, a virtual console, a serial line), then writes escape codes to the pane's
 * terminal (a window title, clear the screen, text) and pushes `touch PWNED` into its input with TIOCSTI. In every way
 * of running commands the pane is left as it was: same title, nothing cleared or written, nothing typed into the shell.
 * The same attack run from the pane's own shell (the control) does all of it.
 *
 * The attack writes to no terminal but the pane's (it only opens the others): other programs' terminals on the machine
 * are never touched, whatever the outcome.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResults, resultText } from '../../support/agentServer.js';
import { CLI } from '../../support/cli.js';
import { pathWithout, type HiddenProgramPath } from '../../support/hideProgram.js';
import { openCliProject, type CliProject } from '../../support/project.js';
import { openTmux, shellQuote, type TmuxPane } from '../../support/tmux.js';
import { testUsers, type TestUser } from '../../support/users.js';

/** perl (perl-base: on every Debian and Ubuntu): `perl -e ATTACK PANE_TTY NAME`. 0x5412 is TIOCSTI. */
const ATTACK = `use Fcntl;
my ($pane, $name) = @ARGV;
my @open;
for my $f (glob("/dev/pts/[0-9]*"), "/dev/console", "/dev/tty1", "/dev/ttyS0", "/dev/vcs1") {
  if (sysopen(my $fh, $f, O_WRONLY|O_NOCTTY|O_NONBLOCK)) { push @open, $f if -t $fh; close $fh }
}
print "terminals: @open\\n";
if (sysopen(my $t, $pane, O_RDWR|O_NOCTTY|O_NONBLOCK)) {
  syswrite($t, "\\e]2;$name-TITLE\\a\\e[2J\\e[H$name-TEXT\\r\\n");
  my $typed = 1;
  for my $c (split //, "touch $name\\n") { $typed = 0 unless ioctl($t, 0x5412, $c) }
  print $typed ? "typed\\n" : "tiocsti: $!\\n";
} else { print "pane: $!\\n" }`;

const attack = (pane: string, name: string) => `perl -e ${shellQuote(ATTACK)} ${pane} ${name}`;

let noBwrap: HiddenProgramPath;
beforeAll(() => {
  noBwrap = pathWithout('bwrap');
});
afterAll(() => noBwrap.remove());

/** A project owned by `user`, and a tmux pane of `user` with a plain bash in the project. */
async function open(user: TestUser): Promise<{ project: CliProject; pane: TmuxPane; tty: string; close(): Promise<void> }> {
  const project = await openCliProject('terminal');
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, project.dir]);
  // No history file: bash would write one when tmux's server is killed, while the folder is being removed.
  const env = { ...project.env, HOME: project.dir, HISTFILE: '/dev/null' };
  const pane = await openTmux('PS1="$ " bash --norc --noprofile', { cwd: project.dir, env, prefix: user.prefix });
  await pane.waitFor('$');
  await pane.line('echo BEFORE-MARK');
  await pane.waitFor(/^BEFORE-MARK$/m);
  return { project, pane, tty: await pane.show('#{pane_tty}'), close: async () => (await pane.close(), await project.close()) };
}

/** What the pane shows (the screen, without the lines scrolled off it) once the shell has read all input waiting. */
async function afterward(pane: TmuxPane): Promise<{ screen: string; title: string }> {
  await pane.line('echo AFTER-MARK');
  await pane.waitFor(/^AFTER-MARK$/m, 30_000);
  return { screen: await pane.screen({ scrollback: false }), title: await pane.show('#{pane_title}') };
}

const WAYS = [
  { way: 'contained by bubblewrap (the default)', flags: [] as string[], hideBwrap: false },
  { way: 'contained by unshare (no bubblewrap on PATH)', flags: [] as string[], hideBwrap: true },
  { way: 'sandboxed (--sandbox)', flags: ['--sandbox'], hideBwrap: false },
];

describe.each(testUsers())('as $name', (user) => {
  it('the control: from the pane\'s own shell the attack sets the title, clears the screen and types', { timeout: 60_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const { project, pane, tty, close } = await open(user);
    try {
      await pane.line(`${attack(tty, 'CONTROL')}; echo AGENT-DONE`);
      // The line as typed holds AGENT-DONE too: wait for the echo's own line, or AFTER-MARK is typed into the pane
      // before the attack's TIOCSTI and ends up on one line with its `touch CONTROL` (CI, 15:04 on e76bea8).
      await pane.waitFor(/^AGENT-DONE$/m, 30_000);
      const { screen, title } = await afterward(pane);
      expect(title).toBe('CONTROL-TITLE');
      expect(screen).not.toContain('BEFORE-MARK');
      expect(existsSync(join(project.dir, 'CONTROL'))).toBe(true);
    } finally {
      await close();
    }
  });

  it.for(WAYS)('$way: the pane is left as it was and nothing is typed', { timeout: 60_000 }, async ({ flags, hideBwrap }, ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const { project, pane, tty, close } = await open(user);
    try {
      const titleBefore = await pane.show('#{pane_title}');
      project.server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_tty', name: 'bash', input: { command: attack(tty, 'PWNED') } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const path = hideBwrap ? `PATH=${shellQuote(noBwrap.path)} ` : '';
      const cli = [process.execPath, CLI, '-p', 'go', '--dangerously-skip-permissions', ...flags].map(shellQuote).join(' ');
      await pane.line(`${path}${cli}; echo AGENT-DONE`);
      await pane.waitFor(/^AGENT-DONE$/m, 30_000);
      const { screen, title } = await afterward(pane);
      const seen = resultText(lastToolResults(project.server.requests[1]?.body as never)[0] as never);
      expect(seen).toMatch(/^terminals: $/m); // not one terminal it can open
      expect(seen).toMatch(/^(pane|tiocsti): /m);
      expect(seen).not.toContain('typed');
      expect(title).toBe(titleBefore);
      expect(screen).toContain('BEFORE-MARK');
      expect(screen).not.toContain('PWNED-TEXT');
      expect(existsSync(join(project.dir, 'PWNED'))).toBe(false);
    } finally {
      await close();
    }
  });
});
