import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A fresh directory outside /tmp, /var/tmp and /run (which the sandbox replaces with private
 * ones, so that what a test puts there would be out of a sandboxed command's sight anyway):
 * under the project's node_modules/.cache. Removed by the returned cleanup.
 */
export function scratchDir(prefix = 'agentloop-test-'): { dir: string; cleanup: () => void } {
  const root = fileURLToPath(new URL('../../node_modules/.cache/agentloop-tests', import.meta.url));
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
