/**
 * Commands and MCP stdio servers start with no capability they do not need, as root too, and with a /dev of what a
 * command needs (issue 36 item 1): no CAP_NET_RAW (a command captured the `x-api-key` of a plain-HTTP request on the
 * host's loopback), CAP_NET_ADMIN, CAP_SYS_ADMIN or CAP_SYSLOG, effective or permitted, and as root with
 * no_new_privs set (so that no program it runs gains one back: bubblewrap leaves the bounding set whole); a raw socket
 * fails; no /dev/kmsg, no block device, no loop or fuse device (the plain way keeps the host's /dev: it has no mount
 * namespace). For every runner of the bash tool and every way an MCP server is started, as root and as nobody
 * (test/support/users.ts): the runners run in an agent process of the user's own, as in the abort tests.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startAbortAgent, type RunnerName } from '../../support/abortAgent.js';
import { handTo } from '../../support/bashAs.js';
import { startLineAgent } from '../../support/lineAgent.js';
import { testUsers } from '../../support/users.js';
import { bashScratchPerTest } from './bashHelpers.js';
import { fileURLToPath } from 'node:url';

let dir: string;
bashScratchPerTest((d) => (dir = d));

/** Bits of /proc/PID/status's capability sets (linux/capability.h). */
const FORBIDDEN = { NET_ADMIN: 12, NET_RAW: 13, SYS_ADMIN: 21, SYSLOG: 34 } as const;

/** What the probe prints: its capability sets, a raw socket's fate, and what of /dev it should not see. */
const PROBE = [
  'grep -E "^(Cap(Eff|Prm)|NoNewPrivs):" /proc/self/status',
  `perl -MSocket -e 'socket(my $s, PF_INET, SOCK_RAW, 1) ? print("raw socket: made\\n") : print("raw socket: $!\\n")'`,
  'echo "dev: $(ls /dev | tr "\\n" " ")"',
  'echo "block: $(find /dev -type b 2>/dev/null | tr "\\n" " ")"',
  '[ -e /dev/kmsg ] && echo "kmsg: there"',
  'echo "init: $(tr "\\0" " " < /proc/1/cmdline)"',
  'true',
].join('; ');

interface Seen {
  caps: Record<string, bigint>;
  raw: string;
  dev: string[];
  block: string;
  kmsg: boolean;
  noNewPrivs: boolean;
  /** The command line of the first process of its PID namespace (the host's init for the plain way). */
  init: string;
}

function read(output: string): Seen {
  const caps: Record<string, bigint> = {};
  for (const m of output.matchAll(/^Cap(\w+):\s*([0-9a-f]+)$/gm)) caps[m[1] as string] = BigInt(`0x${m[2]}`);
  return {
    caps,
    raw: /^raw socket: (.*)$/m.exec(output)?.[1] ?? `(none in ${JSON.stringify(output)})`,
    dev: (/^dev: (.*)$/m.exec(output)?.[1] ?? '').trim().split(/\s+/),
    block: (/^block: (.*)$/m.exec(output)?.[1] ?? '').trim(),
    kmsg: /^kmsg: there$/m.test(output),
    noNewPrivs: /^NoNewPrivs:\s*1$/m.test(output),
    init: /^init: (.*)$/m.exec(output)?.[1] ?? '',
  };
}

function expectHeld(seen: Seen, hostDev: boolean, root: boolean): void {
  if (root) expect(seen.noNewPrivs).toBe(true);
  for (const set of ['Eff', 'Prm']) {
    const held = Object.entries(FORBIDDEN).filter(([, bit]) => ((seen.caps[set] ?? -1n) & (1n << BigInt(bit))) !== 0n);
    expect(held.map(([name]) => name), `Cap${set} ${seen.caps[set]?.toString(16)}`).toEqual([]);
  }
  expect(seen.raw).toMatch(/not permitted/i);
  if (hostDev) return;
  expect(seen.kmsg).toBe(false);
  expect(seen.block).toBe('');
  expect(seen.dev.filter((name) => /^(kmsg|loop|fuse|vd|sd|nvme|mem$|port$|vsock|userfaultfd|tty\d|ttyS|console|input|uinput)/.test(name))).toEqual([]);
  expect(seen.dev).toEqual(expect.arrayContaining(['null', 'zero', 'full', 'random', 'urandom', 'tty', 'ptmx', 'pts', 'shm']));
}

const RUNNERS: RunnerName[] = ['plain', 'contained', 'unshare', 'sandboxed'];

/** An agent that starts one stdio MCP server a line (the probe, then `sed -n d`, silent), and answers its output. */
const SERVERS = JSON.stringify(fileURLToPath(new URL('../../../dist/tools/mcp/servers.js', import.meta.url)));
const MCP_AGENT = `
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { startMcpServers } from ${SERVERS};
const way = process.argv[1];
for await (const line of createInterface({ input: process.stdin })) {
  const { probe, out, cwd, path } = JSON.parse(line);
  const options = way === 'plain' ? { contain: false } : way === 'sandboxed' ? { sandbox: {} } : {};
  const script = '{ ' + probe + '; } > ' + out + '.part 2>&1; mv ' + out + '.part ' + out + '; exec sed -n d';
  const mcp = startMcpServers({ s: { type: 'stdio', command: 'bash', args: ['-c', script] } }, { cwd, env: { ...process.env, PATH: path }, ...options });
  const end = Date.now() + 30000;
  while (!existsSync(out) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  const text = existsSync(out) ? readFileSync(out, 'utf8') : 'no output: ' + JSON.stringify(mcp.states());
  await mcp.close();
  process.stdout.write(JSON.stringify(text) + '\\n');
}`;

/** A PATH whose containment programs are util-linux's only (no bwrap): the unshare way. */
function pathWithoutBwrap(): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const program of ['unshare', 'setpriv', 'timeout']) symlinkSync(`/usr/bin/${program}`, join(bin, program));
  return bin;
}

describe.each(testUsers())('as $name', { timeout: 120_000 }, (user) => {
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, dir);
  });

  describe.each(RUNNERS)('a command of the %s runner', (runner) => {
    const agent = startAbortAgent(user.prefix, runner);
    afterAll(() => agent.close());

    it('holds no dangerous capability, makes no raw socket, sees no kmsg, disk, loop or fuse device', async () => {
      const ending = await agent.run({ command: PROBE, cwd: dir, at: 'never' });
      expect(ending.kind, ending.output).toBe('exit');
      expect(read(ending.output).init).toMatch(runner === 'contained' || runner === 'sandboxed' ? /^\S*bwrap / : /^(?!\S*bwrap )/);
      expectHeld(read(ending.output), runner === 'plain', user.prefix.length === 0 && process.getuid?.() === 0);
    });
  });

  describe.each(['plain', 'contained', 'unshare', 'sandboxed'])('an MCP server started the %s way', (way) => {
    const agent = startLineAgent<{ probe: string; out: string; cwd: string; path: string }, string>(
      user.prefix, MCP_AGENT, way === 'unshare' ? 'contained' : way, user.prefix.length === 0 ? process.env.HOME : '/nonexistent',
    );
    afterAll(() => agent.close());

    it('holds no dangerous capability, makes no raw socket, sees no kmsg, disk, loop or fuse device', async () => {
      const path = way === 'unshare' ? pathWithoutBwrap() : (process.env.PATH ?? '');
      const output = await agent.run({ probe: PROBE, out: join(dir, 'probe.txt'), cwd: dir, path });
      expect(read(output).init).toMatch(way === 'contained' || way === 'sandboxed' ? /^\S*bwrap / : /^(?!\S*bwrap )/);
      expectHeld(read(output), way === 'plain', user.prefix.length === 0 && process.getuid?.() === 0);
    });
  });
});
