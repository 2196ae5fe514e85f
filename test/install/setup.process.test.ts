/**
 * A fresh machine works from the README (issue 23, item 9): `npm test` first runs scripts/setup-debian.sh (package.json's
 * pretest), and so does .ci/run; the script installs the Debian packages the tests need, says which, and installs
 * nothing when all are there. Tried without installing anything: SETUP_DEBIAN_DRY_RUN=1 on a PATH that lacks some of
 * the programs (as on a new machine), as nobody without sudo, and each package name checked against what dpkg says
 * owns the program on this machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pathWithout, type HiddenProgramPath } from '../support/hideProgram.js';
import { NOBODY_PREFIX, testUsers } from '../support/users.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/setup-debian.sh', import.meta.url));
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The script's `want COMMAND PACKAGE` lines. */
const WANTED = [...read('scripts/setup-debian.sh').matchAll(/^want (\S+) (\S+)$/gm)].map(([, command, pkg]) => ({ command: command!, pkg: pkg! }));

function setup(env: Record<string, string>, prefix: string[] = []) {
  const argv = [...prefix, 'bash', SCRIPT];
  const run = spawnSync(argv[0]!, argv.slice(1), { cwd: '/', env, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A PATH without each of `programs` (each hidden from the PATH before). */
function pathLacking(programs: string[]): { path: string; remove(): void } {
  const hidden: HiddenProgramPath[] = [];
  let path = process.env.PATH ?? '';
  for (const program of programs) {
    hidden.push(pathWithout(program, path));
    path = hidden.at(-1)!.path;
  }
  return { path, remove: () => hidden.forEach((h) => h.remove()) };
}

describe('scripts/setup-debian.sh', () => {
  it('wants every program the tests start that Debian may lack', () => {
    expect(WANTED.map((w) => w.command)).toEqual(['chromium', 'bwrap', 'git', 'jq', 'tmux', 'ps', 'pgrep', 'perl', 'unshare', 'setpriv']);
  });

  it('installs nothing and says nothing when all are there', () => {
    const run = setup({ PATH: process.env.PATH ?? '', SETUP_DEBIAN_DRY_RUN: '1' });
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('names the packages of the programs a new machine lacks, each once', () => {
    const lacking = pathLacking(['bwrap', 'jq', 'ps', 'pgrep']);
    try {
      const run = setup({ PATH: lacking.path, SETUP_DEBIAN_DRY_RUN: '1' });
      expect(run).toEqual({ code: 0, stdout: 'setup-debian: would install bubblewrap jq procps\n', stderr: '' });
    } finally {
      lacking.remove();
    }
  });

  it('as a user without sudo: one line saying what to install as root, and a failure', (ctx) => {
    // Skipped, saying why, where nobody cannot run (not root) or cannot reach the checkout (a clone in a 0700 folder).
    const nobody = testUsers().find((user) => user.name === 'nobody');
    if (nobody?.skip !== undefined) ctx.skip(nobody.skip);
    const lacking = pathLacking(['tmux', 'sudo']);
    try {
      const run = setup({ PATH: lacking.path }, NOBODY_PREFIX);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('setup-debian: the tests need tmux; as root: apt-get install tmux\n');
    } finally {
      lacking.remove();
    }
  });

  it("each package is the one that holds its program on this machine (dpkg's answer)", (ctx) => {
    if (!existsSync('/usr/bin/dpkg')) ctx.skip('not a Debian system');
    // Both places: with /usr merged, dpkg knows some programs by /bin (ps), others by /usr/bin. One call for all.
    const paths = WANTED.flatMap(({ command }) => [`/usr/bin/${command}`, `/bin/${command}`]);
    const answer = spawnSync('dpkg', ['-S', ...paths], { encoding: 'utf8' }).stdout;
    const owner = new Map(answer.split('\n').map((line) => [line.slice(line.lastIndexOf('/') + 1), line.split(':')[0]]));
    expect(Object.fromEntries(WANTED.map(({ command }) => [command, owner.get(command)]))).toEqual(Object.fromEntries(WANTED.map(({ command, pkg }) => [command, pkg])));
  });

  it('runs before the tests (pretest) and in CI', () => {
    expect(JSON.parse(read('package.json')).scripts.pretest).toBe('bash scripts/setup-debian.sh');
    expect(read('.ci/run')).toMatch(/^bash scripts\/setup-debian\.sh$/m);
  });
});
