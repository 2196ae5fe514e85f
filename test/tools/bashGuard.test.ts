import { describe, expect, it } from 'vitest';
import { findDanger, isDangerousDevice, isProtectedPath } from '../../src/tools/bash/guard.js';

// Every entry of the blocklist, in the forms the model is likely to write.
const BLOCKED: [command: string, reason: RegExp][] = [
  ['rm -rf /', /rm -r \//],
  ['rm -fr /', /rm -r \//],
  ['rm -rf /*', /rm -r/],
  ['rm -r -f /', /rm -r/],
  ['rm -Rf /', /rm -r/],
  ['rm --recursive --force /', /rm -r/],
  ['rm -rf -- /', /rm -r/],
  ['rm -rf //', /rm -r/],
  ['rm -rf /.', /rm -r/],
  ['rm -rf "/"', /rm -r/],
  ["rm -rf '/'*", /rm -r/],
  ['rm -rf /usr', /rm -r \/usr/],
  ['rm -rf /home/', /rm -r/],
  ['rm -rf ~', /rm -r ~/],
  ['rm -rf ~/', /rm -r/],
  ['rm -rf ~/*', /rm -r/],
  ['rm -rf $HOME', /rm -r/],
  ['rm -rf "${HOME}"/', /rm -r/],
  ['rm -r --no-preserve-root /', /no-preserve-root/],
  ['rm --no-preserve-root -rf /tmp/x', /no-preserve-root/],
  ['/bin/rm -rf /', /rm -r/],
  ['cd /tmp && rm -rf /', /rm -r/],
  ['true; rm -rf /', /rm -r/],
  ['echo ok\nrm -rf /', /rm -r/],
  ['FOO=1 rm -rf /', /rm -r/],
  ['env -i rm -rf /', /rm -r/],
  ['nohup rm -rf / &', /rm -r/],
  ['timeout 5 rm -rf /', /rm -r/],
  ['xargs rm -rf / < list', /rm -r/],
  ['echo $(rm -rf /)', /rm -r/],
  ['echo "`rm -rf /`"', /rm -r/],
  ['bash -c "rm -rf /"', /rm -r/],
  ["sh -c 'sudo ls'", /sudo/],
  ['eval "rm -rf /"', /rm -r/],
  ['chmod -R 777 /', /chmod -r/],
  ['chown -R me /', /chown -r/],
  ['find / -delete', /find/],
  ['sudo ls', /sudo/],
  ['sudo -u root rm x', /sudo/],
  ['/usr/bin/sudo ls', /sudo/],
  ['command sudo ls', /sudo/],
  ['time sudo ls', /sudo/],
  ['ls && sudo apt install x', /sudo/],
  ['doas ls', /doas/],
  ['su -c ls', /su/],
  ['pkexec ls', /pkexec/],
  ['shutdown -h now', /shutdown/],
  ['reboot', /reboot/],
  ['halt', /halt/],
  ['poweroff', /poweroff/],
  ['init 0', /init 0/],
  ['systemctl reboot', /systemctl/],
  ['mkfs /dev/sdb1', /mkfs/],
  ['mkfs.ext4 /dev/sdb1', /mkfs/],
  ['mke2fs /dev/sdb1', /mke2fs/],
  ['mkswap /dev/sdb2', /mkswap/],
  ['wipefs -a /dev/sda', /wipefs/],
  ['echo x > /dev/sda', /device \/dev\/sda/],
  ['cat img >/dev/sda', /device/],
  ['cat img >> /dev/nvme0n1', /device/],
  ['cat img 1>/dev/sda', /device/],
  ['cat img &> /dev/sda', /device/],
  ['cat img >& /dev/sda', /device/],
  ['cat img > //dev//sda', /device/],
  ['echo x > /dev/mem', /device/],
  ['dd if=img of=/dev/sda bs=1M', /dd to device/],
  ['cat img | tee /dev/sda', /device/],
  [':(){ :|:& };:', /fork bomb/],
];

// Look-alikes that must run.
const ALLOWED: string[] = [
  'ls 2> /dev/null',
  'ls > /dev/null',
  'ls >/dev/null 2>&1',
  'echo oops >/dev/stderr',
  'echo hi > /dev/stdout',
  'cat /dev/null > out.txt',
  'echo x > /dev/tty',
  'echo x > /dev/fd/2',
  'echo x > /dev/shm/scratch',
  'head -c 10 /dev/urandom',
  'dd if=/dev/zero of=./disk.img bs=1k count=1',
  'dd if=/dev/sda of=./backup.img',
  'rm -rf ./build',
  'rm -rf build dist node_modules',
  'rm -rf /tmp/agentloop-test/x',
  'rm -rf ~/project/build',
  'rm -rf "$HOME/.cache/thing"',
  'rm -rf .',
  'rm -f /tmp/file',
  'rm /usr',
  'rm -rf -- ./-weird',
  'echo sudo',
  'echo "rm -rf /"',
  "grep -r 'sudo' .",
  'apt-cache show sudo',
  'man shutdown',
  'echo reboot > notes.txt',
  'git commit -m "rm -rf / is blocked"',
  'ls /dev/sda',
  'cat < /dev/sda',
  'chmod -R u+w ./src',
  'chmod 755 /',
  'find . -name "*.tmp" -delete',
  'systemctl status nginx',
  'init --version',
  'printf "%s\\n" ":(){ x }"',
  'cat <<EOF\nsudo rm -rf /\nEOF',
  'command -v sudo',
  'if command -v sudo >/dev/null; then echo yes; fi',
  'which sudo',
];

describe('findDanger', () => {
  it.each(BLOCKED)('blocks %j', (command, reason) => {
    const found = findDanger(command);
    expect(found).not.toBeNull();
    expect(found?.toLowerCase()).toMatch(reason);
  });

  it.each(ALLOWED)('allows %j', (command) => {
    expect(findDanger(command)).toBeNull();
  });
});

describe('isProtectedPath', () => {
  it.each([
    ['/', true],
    ['/*', true],
    ['/./', true],
    ['/usr/..', true],
    ['/etc', true],
    ['~', true],
    ['~/*', true],
    ['$HOME', true],
    ['${HOME}/', true],
    ['/etc/nginx', false],
    ['~/build', false],
    ['./', false],
    ['build', false],
    ['$HOMEWORK', false],
  ])('%j → %s', (path, expected) => {
    expect(isProtectedPath(path)).toBe(expected);
  });
});

describe('isDangerousDevice', () => {
  it.each([
    ['/dev/sda', true],
    ['/dev/nvme0n1p1', true],
    ['/dev/mapper/root', true],
    ['/dev/null', false],
    ['/dev/stderr', false],
    ['/dev/fd/3', false],
    ['/dev/pts/0', false],
    ['/dev/tcp/127.0.0.1/80', false],
    ['./dev/sda', false],
  ])('%j → %s', (path, expected) => {
    expect(isDangerousDevice(path)).toBe(expected);
  });
});
