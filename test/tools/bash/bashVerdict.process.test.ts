/**
 * The containment probe's verdict, kept across processes (tools/bash/run/verdict.ts, issue 40): a second agent process
 * of the same user starts no bwrap probe before its first command; the verdict counts only for the binary it was
 * true of; one another user could have written (a folder or file not the user's own, or writable by others, a link) is
 * not read; and nothing kept makes a command run uncontained. As root and as nobody (test/support/users.ts), each agent
 * a fresh process of that user running the built runner (dist/), with a `bwrap` on its PATH that logs each start.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testUsers, type TestUser } from '../../support/users.js';

const REAL_BWRAP = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));
const DIST = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../../dist/tools/bash/run/${path}`, import.meta.url)));

/** One agent process: chooses a runner, runs `echo ran > FILE` with it, and prints the runner's kind and the output. */
const AGENT = `
import { chooseRunner } from ${DIST('choose.js')};
const runner = await chooseRunner({ contain: true, pathVar: process.env.PATH });
let output = '';
const ending = await runner.run({ command: 'echo ran > ' + process.argv[1] + '; echo ok', cwd: '/', env: { PATH: '/usr/bin:/bin' }, timeoutMs: 20000,
  signal: new AbortController().signal, onData: (c) => (output += Buffer.from(c).toString()) });
process.stdout.write(JSON.stringify({ kind: runner.kind, output, ending }));`;

/** Writes the verdict this user's process would keep for the bwrap on PATH, as the same user could. */
const PLANT = `
import { writeFileSync } from 'node:fs';
import { containedArgv } from ${DIST('contained.js')};
import { findExecutable } from ${DIST('programs.js')};
import { verdictKey, keepVerdict } from ${DIST('verdict.js')};
const bwrap = findExecutable('bwrap', process.env.PATH);
keepVerdict(verdictKey(containedArgv(bwrap, {}, '/', 'true', 10000)));`;

interface Seen {
  kind: string;
  output: string;
  /** bwrap starts for the probe (a `bash -c true`) in this run. */
  probes: number;
  /** The command ran (it wrote its marker). */
  ran: boolean;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-verdict-'));
  chmodSync(dir, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The user's folders: a runtime folder (XDG_RUNTIME_DIR) and a TMPDIR of its own, and a logging bwrap on its PATH. */
function setUp(user: TestUser, bwrapScript?: string) {
  const owned = (path: string, mode: number) => {
    mkdirSync(path, { recursive: true });
    chmodSync(path, mode);
    if (user.owner !== undefined) chownSync(path, 65534, 65534);
    return path;
  };
  const runtime = owned(join(dir, 'run'), 0o700);
  const temporary = owned(join(dir, 'tmp'), 0o700);
  const shims = join(dir, 'shims');
  mkdirSync(shims);
  const log = join(dir, 'bwrap.log');
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  const bwrap = join(shims, 'bwrap');
  writeFileSync(bwrap, bwrapScript ?? `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${REAL_BWRAP}' "$@"\n`);
  chmodSync(bwrap, 0o755);
  const env = { PATH: `${shims}:/usr/bin:/bin`, HOME: '/nonexistent', XDG_RUNTIME_DIR: runtime, TMPDIR: temporary };
  const marker = join(temporary, 'ran');
  const node = (program: string, arg: string) =>
    spawnSync(user.prefix[0] ?? process.execPath, [...user.prefix.slice(1), ...(user.prefix.length ? [process.execPath] : []), '--input-type=module', '-e', program, arg], {
      cwd: '/',
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
  let logged = 0;
  const agent = (): Seen => {
    rmSync(marker, { force: true });
    const run = node(AGENT, marker);
    if (run.status !== 0) throw new Error(`the agent failed (${run.status}): ${run.stderr}`);
    const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l.endsWith(' -c true'));
    const probes = lines.length - logged;
    logged = lines.length;
    const { kind, output } = JSON.parse(run.stdout) as { kind: string; output: string };
    return { kind, output, probes, ran: existsSync(marker) };
  };
  const plant = () => expect(node(PLANT, '').status).toBe(0);
  const kept = () => join(runtime, 'agentloop');
  return { agent, plant, kept, bwrap, runtime, temporary };
}

const verdicts = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((f) => f.startsWith('contain-')) : []);

describe.skipIf(REAL_BWRAP === undefined)('the containment probe’s verdict, kept across processes', () => {
  for (const user of testUsers()) {
    describe.skipIf(user.skip !== undefined)(`as ${user.name}${user.skip ? ` (${user.skip})` : ''}`, () => {
      it('a second process of the user starts no probe; the verdict counts only for the binary it was true of', () => {
        const u = setUp(user);
        expect(u.agent()).toMatchObject({ kind: 'contained', probes: 1, ran: true });
        const [file] = verdicts(u.kept());
        expect(file).toBeDefined();
        const stats = statSync(join(u.kept(), file as string));
        expect([stats.mode & 0o777, statSync(u.kept()).mode & 0o777]).toEqual([0o600, 0o700]);
        expect(stats.uid).toBe(user.owner === undefined ? process.geteuid?.() : 65534);
        expect(u.agent()).toMatchObject({ kind: 'contained', probes: 0, ran: true });
        // The binary changed (an upgrade, a replaced file): probed again, and kept again.
        utimesSync(u.bwrap, new Date(), new Date(Date.now() + 5_000));
        expect(u.agent()).toMatchObject({ kind: 'contained', probes: 1, ran: true });
        expect(u.agent()).toMatchObject({ kind: 'contained', probes: 0, ran: true });
      });

      it('a verdict another user could have written is not read: the process probes', () => {
        const other = user.owner === undefined ? 65534 : 0;
        const tamperings: Array<[string, (kept: string, file: string) => void]> = [
          ['the folder writable by others', (kept) => chmodSync(kept, 0o777)],
          ['the folder readable by others', (kept) => chmodSync(kept, 0o750)],
          ['the folder another user’s', (kept) => chownSync(kept, other, other)],
          ['the file another user’s', (_, file) => chownSync(file, other, other)],
          ['the file writable by others', (_, file) => chmodSync(file, 0o666)],
          ['the file a link to a verdict', (kept, file) => {
            renameSync(file, join(kept, 'elsewhere'));
            symlinkSync(join(kept, 'elsewhere'), file);
          }],
          ['the folder a link to a folder of verdicts', (kept) => {
            renameSync(kept, `${kept}-real`);
            symlinkSync(`${kept}-real`, kept);
          }],
        ];
        for (const [what, tamper] of tamperings) {
          const u = setUp(user);
          expect(u.agent(), what).toMatchObject({ kind: 'contained', probes: 1 });
          const [file] = verdicts(u.kept());
          tamper(u.kept(), join(u.kept(), file as string));
          expect(u.agent(), what).toMatchObject({ kind: 'contained', probes: 1, ran: true });
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir);
          chmodSync(dir, 0o755);
        }
      });

      it('nothing kept makes a command run uncontained', () => {
        // A verdict that names no runner: its content is only what it is true of.
        const u = setUp(user);
        u.agent();
        const [file] = verdicts(u.kept());
        writeFileSync(join(u.kept(), file as string), JSON.stringify({ kind: 'plain' }));
        expect(u.agent()).toMatchObject({ kind: 'contained', probes: 1, ran: true });
        // A bwrap that refuses: a refusal is never kept, so the next process probes again (and falls back).
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        chmodSync(dir, 0o755);
        const refusing = setUp(user, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
        expect(refusing.agent().kind).not.toBe('contained');
        expect(verdicts(refusing.kept())).toEqual([]);
        // The same user keeping "it worked" for a bwrap that refuses: commands fail, and run nowhere else.
        refusing.plant();
        const seen = refusing.agent();
        expect(seen.kind).toBe('contained');
        expect(seen.ran).toBe(false);
        expect(seen.output).toContain('No permissions');
      });
    });
  }
});
