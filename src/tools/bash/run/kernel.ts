/**
 * What keeps a command off the kernel's settings, as root too, in every way of running it under a namespace.
 *
 * Root owns `/proc/sys/*` and `/sys/*`: a root command writes them whatever its capabilities (`core_pattern =
 * |/path/x.sh` has the kernel run that file as host root at the next crash). Read-only mounts stop the write, and
 * without CAP_SYS_ADMIN they cannot be remounted, nor unmounted to show what is under them (the host's /proc under
 * the command's own). Why not a user namespace that maps root to an unprivileged id instead: the working directory
 * would then belong to another user (root's files in it unwritable, new files owned by nobody).
 */

/** Made read-only over the command's /proc, as Docker does (bubblewrap already does /proc/irq and /proc/bus). */
export const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/fs'] as const;

/** bubblewrap's options for PROC_READ_ONLY, after `--proc /proc`. */
export function procReadOnlyArgs(): string[] {
  return PROC_READ_ONLY.flatMap((path) => ['--ro-bind-try', path, path]);
}

/**
 * What a root command keeps outside the sandbox, the capabilities of ordinary root work (installing packages, chown,
 * running a service's tool as its user, binding port 80); each is here for a reason:
 *
 * - CHOWN, DAC_OVERRIDE, FOWNER, FSETID: root's own file work (files of other users, modes, ownership and set-id bits
 *   kept as dpkg, tar and cp -a set them);
 * - SETUID, SETGID: `su`, `runuser`, `sudo -u`, and programs that drop to a user of their own (apt's `_apt`, postgres);
 * - SETPCAP: programs that drop capabilities themselves (setpriv, capsh, daemons) within what is left here;
 * - SETFCAP: a package that gives a program file capabilities when installed (setcap in its postinst);
 * - KILL: signals to the command's own processes of other users (its PID namespace holds no other);
 * - NET_BIND_SERVICE: a server on a port under 1024;
 * - SYS_CHROOT: chroot (build tools, debootstrap); AUDIT_WRITE: su and login's PAM modules write an audit record.
 *
 * Not kept: CAP_NET_RAW (raw and packet sockets: a command would capture the host's loopback traffic, e.g. the API key
 * of a request to a plain-HTTP gateway; `ping` goes with it), CAP_NET_ADMIN, CAP_SYS_ADMIN (mount, umount, TIOCSTI into
 * another terminal, setns), CAP_SYSLOG (the kernel's log and addresses), CAP_MKNOD (a device node of a disk or of the
 * user's terminal could be made again), CAP_SYS_PTRACE, CAP_SYS_MODULE, CAP_SYS_RAWIO (/dev/mem), CAP_SYS_BOOT,
 * CAP_BPF, CAP_PERFMON, CAP_DAC_READ_SEARCH (open_by_handle_at), CAP_SYS_TIME, CAP_SYS_RESOURCE, CAP_SYS_NICE,
 * CAP_IPC_LOCK, CAP_IPC_OWNER, CAP_LEASE, CAP_LINUX_IMMUTABLE, CAP_WAKE_ALARM, CAP_BLOCK_SUSPEND, CAP_MAC_*,
 * CAP_AUDIT_CONTROL, CAP_AUDIT_READ, CAP_CHECKPOINT_RESTORE.
 */
export const ROOT_CAPABILITIES = [
  'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE',
  'SYS_CHROOT', 'AUDIT_WRITE', 'SETFCAP',
] as const;

/** bubblewrap's options that leave a root command ROOT_CAPABILITIES only (an unprivileged one has none anyway). */
export function rootCapabilityArgs(root: boolean): string[] {
  if (!root) return [];
  return ['--cap-drop', 'ALL', ...ROOT_CAPABILITIES.flatMap((cap) => ['--cap-add', `CAP_${cap}`])];
}

/** setpriv's option that leaves ROOT_CAPABILITIES in the bounding set (the unshare and plain ways). */
export function rootBoundingSet(): string {
  return `-all,${ROOT_CAPABILITIES.map((cap) => `+${cap.toLowerCase()}`).join(',')}`;
}
