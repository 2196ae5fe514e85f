/**
 * Contained as root too (issue 23, items 1 and 2). A command, in each way of running it (contained by bubblewrap, the
 * default; contained by util-linux's unshare where bubblewrap is missing; `--sandbox`), as root and as an unprivileged
 * user, tries what an attacker would: write the kernel's settings (core_pattern, hostname, panic, ...), unmount or
 * remount what contains it (also from a user namespace of its own), and unmount its /proc to reach the agent's own
 * process and the API key in its environment. Through the CLI as a process, against the local Messages API server.
 *
 * No attack changes the host even where it works: a setting is written back with the value just read from it, and a
 * command first checks that it is in a mount namespace of its own, or stops before it unmounts anything.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResults, resultText } from '../../support/agentServer.js';
import { pathWithout, type HiddenProgramPath } from '../../support/hideProgram.js';
import { openCliProject } from '../../support/project.js';
import { runCliAs, testUsers } from '../../support/users.js';

const API_KEY = `sk-ant-api03-${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}-AA`;
/** Matches the key but not itself (the brackets): a command never finds its own text. */
const KEY_PATTERN = `'sk-ant-api0[3]-[A-Za-z0-9_-]\\{20,\\}'`;
const HOST_MOUNTS = readlinkSync('/proc/self/ns/mnt');
const HOST_PIDS = readlinkSync('/proc/self/ns/pid');

/** Stops the command before anything that would change the host, were it not in namespaces of its own. */
const GUARD = `[ "$(readlink /proc/self/ns/mnt)" = '${HOST_MOUNTS}' ] && { echo NOT-CONTAINED; exit 1; }`;

/** Writes each setting back with its own value, or says which it could write. */
const TRY_KERNEL = `try_kernel() {
  for f in kernel/core_pattern kernel/hostname kernel/panic kernel/randomize_va_space vm/overcommit_memory; do
    v=$(cat /proc/sys/$f 2>/dev/null) || continue
    (printf '%s\\n' "$v" > /proc/sys/$f) 2>/dev/null && echo "wrote /proc/sys/$f"
  done
  for f in /proc/sys/vm/drop_caches /proc/sysrq-trigger /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/uevent_helper /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do
    [ -e "$f" ] && [ -w "$f" ] && echo "writable $f"
  done
}`;
const LOOSEN = 'for m in /proc/sys /sys /proc/sys/kernel; do umount -l $m; mount -o remount,rw $m; done';

const ATTACKS = {
  where: `echo "pid $(readlink /proc/self/ns/pid) init $(tr '\\0' ' ' < /proc/1/cmdline)"; echo where-done`,
  kernel:
    `${GUARD}\n${TRY_KERNEL}\ntry_kernel\n(${LOOSEN}) 2>/dev/null\ntry_kernel\n` +
    `unshare -Urm bash -c "$(declare -f try_kernel); (${LOOSEN}) 2>/dev/null; try_kernel" 2>/dev/null\necho kernel-done`,
  proc:
    `${GUARD}\n(umount -l /proc || umount /proc) 2>/dev/null\n` +
    `grep -aho ${KEY_PATTERN} /proc/[0-9]*/environ 2>/dev/null | rev\n` +
    `echo "processes $(ls -d /proc/[0-9]* | wc -l)"\n` +
    `mkdir -p p && mount -t proc proc p 2>/dev/null; grep -aho ${KEY_PATTERN} p/[0-9]*/environ 2>/dev/null | rev\n` +
    `unshare -Urm bash -c 'umount -l /proc; grep -aho ${KEY_PATTERN.replaceAll("'", '')} /proc/[0-9]*/environ' 2>/dev/null | rev\n` +
    `unshare -Urmpf --mount-proc bash -c 'umount -l /proc; grep -aho ${KEY_PATTERN.replaceAll("'", '')} /proc/[0-9]*/environ' 2>/dev/null | rev\n` +
    `echo proc-done`,
};

let noBwrap: HiddenProgramPath;
beforeAll(() => {
  noBwrap = pathWithout('bwrap');
});
afterAll(() => noBwrap.remove());

const WAYS = [
  { way: 'contained by bubblewrap (the default)', flags: [] as string[], hideBwrap: false },
  { way: 'contained by unshare (no bubblewrap on PATH)', flags: [] as string[], hideBwrap: true },
  { way: 'sandboxed (--sandbox)', flags: ['--sandbox'], hideBwrap: false },
];

describe.each(testUsers())('as $name', (user) => {
  it.for(WAYS)('$way: no kernel setting written, nothing unmounted, the agent out of reach', { timeout: 60_000 }, async ({ flags, hideBwrap }, ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const project = await openCliProject('escape', { apiKey: API_KEY });
    try {
      if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, project.dir]);
      const names = Object.keys(ATTACKS) as (keyof typeof ATTACKS)[];
      project.server.enqueue(
        { content: names.map((name) => ({ type: 'tool_use' as const, id: `toolu_${name}`, name: 'bash', input: { command: ATTACKS[name] } })), stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const env = { ...project.env, ...(hideBwrap ? { PATH: noBwrap.path } : {}) };
      const run = await runCliAs(user, ['-p', 'try to get out', '--output-format', 'json', '--dangerously-skip-permissions', ...flags], { cwd: project.dir, env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('AGENTLOOP_UNCONTAINED');
      const seen = Object.fromEntries(lastToolResults(project.server.requests[1]?.body as never).map((r) => [r.tool_use_id.slice(6), resultText(r)]));

      expect(seen.where).toMatch(/where-done/);
      expect(seen.where).not.toContain(HOST_PIDS); // a PID namespace of its own
      expect(seen.where).toMatch(hideBwrap ? /init (?!\S*bwrap)/ : /init \S*bwrap/);
      expect(seen.kernel).toMatch(/kernel-done/);
      expect(seen.kernel).not.toMatch(/NOT-CONTAINED|wrote|writable/);
      expect(seen.proc).toMatch(/proc-done/);
      expect(seen.proc).not.toContain([...API_KEY].reverse().join(''));
      expect(seen.proc).not.toContain(API_KEY);
      expect(Number(/processes (\d+)/.exec(seen.proc ?? '')?.[1])).toBeLessThan(10);
    } finally {
      await project.close();
    }
  });
});
