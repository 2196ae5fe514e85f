/**
 * The folders of a long-lived program that the sandbox shows from a private directory (src/tools/bash/run/programs.ts):
 * what an MCP server kept under /tmp needs to start in `--sandbox`. The mounts themselves: bashHidden.test.ts; the
 * real server in the sandbox: test/cli/mcp.test.ts.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { programFolders } from '../../../src/tools/bash/run/programs.js';

const top = realpathSync(mkdtempSync('/tmp/agentloop-programs-'));
const other = realpathSync(mkdtempSync('/tmp/agentloop-programs-'));
const outside = realpathSync(mkdtempSync(join(notPrivate(), '.agentloop-programs-')));

/**
 * A writable folder outside /tmp, /var/tmp and /run: the checkout or the home is under /tmp on a CI machine that clones
 * into `mktemp -d` (and gives the tests `HOME=$(mktemp -d)`), so they are tried before /dev/shm, not trusted.
 */
function notPrivate(): string {
  const privates = ['/tmp', '/var/tmp', '/run', '/var/run'].map((dir) => realpathSync(dir));
  const outsidePrivate = (dir: string) => !privates.some((p) => dir === p || dir.startsWith(`${p}/`));
  const found = [process.cwd(), homedir(), '/dev/shm'].map((dir) => realpathSync(dir)).find(outsidePrivate);
  if (found === undefined) throw new Error('no writable folder outside the private directories to test with');
  return found;
}
afterAll(() => [top, other, outside].forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const put = (path: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '');
  return path;
};

describe('programFolders', () => {
  it("names the first folder under /tmp of each file in the argv: the script, an --import URL, an --option=/path", () => {
    const script = put(join(top, 'pkg', 'dist', 'server.js'));
    const loader = put(join(other, 'loader.mjs'));
    const argv = [process.execPath, '--import', pathToFileURL(loader).href, script, `--config=${script}`, 'stdio'];
    expect(programFolders(argv).sort()).toEqual([other, top].sort());
  });

  it('names nothing for files outside the private directories, folders, missing paths and plain words', () => {
    const here = put(join(outside, 'server.js'));
    mkdirSync(join(top, 'data'), { recursive: true });
    expect(programFolders([process.execPath, here, join(top, 'data'), join(top, 'missing.js'), 'stdio', '--port=80', 'file:relative'])).toEqual([]);
  });

  it('follows a link to where the file really is', () => {
    const real = put(join(top, 'linked', 'server.js'));
    const link = join(outside, 'server-link.js');
    symlinkSync(real, link);
    expect(programFolders([process.execPath, link])).toEqual([top]);
  });
});
