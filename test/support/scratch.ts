import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A fresh directory outside /tmp, /var/tmp and /run (which the sandbox replaces with private
 * ones, so that what a test puts there would be out of a sandboxed command's sight anyway):
 * under the project's node_modules/.cache. Removed by the returned cleanup.
 */
export function scratchDir(prefix = 'agentloop-test-'): { dir: string; cleanup: () => void } {
  const root = scratchRoot();
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh directory that nobody (uid 65534) may enter, outside /tmp (a contained command's /tmp is its own) and outside
 * any git repository (whose top folder would be the project's key in ~/.claude.json): under /var/cache as root (nobody
 * goes through it), else under the home's .cache. Removed by the returned cleanup.
 */
export function openScratchDir(prefix: string): { dir: string; cleanup: () => void } {
  const base = process.getuid?.() === 0 ? '/var/cache/agentloop-tests' : join(homedir(), '.cache', 'agentloop-tests');
  mkdirSync(base, { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(base, prefix));
  chmodSync(dir, 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const PRIVATE = /^\/(tmp|var\/tmp|run)(\/|$)/;

/**
 * Where scratch folders go: the project's node_modules/.cache, unless the checkout itself lies in /tmp (a CI clone
 * made with mktemp does); then /var/cache (root), or the home's .cache, whichever is outside the private folders.
 */
function scratchRoot(): string {
  const inProject = fileURLToPath(new URL('../../node_modules/.cache/agentloop-tests', import.meta.url));
  const writable = (dir: string) => {
    try {
      accessSync(dir, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  const candidates = [inProject, '/var/cache/agentloop-tests', join(homedir(), '.cache', 'agentloop-tests')];
  for (const candidate of candidates) {
    if (PRIVATE.test(candidate)) continue;
    const parent = candidate.slice(0, candidate.lastIndexOf('/'));
    if (candidate === inProject || writable(parent)) return candidate;
  }
  throw new Error(`no scratch folder outside /tmp, /var/tmp and /run for the sandbox tests (tried ${candidates.join(', ')})`);
}
