/** The real `@modelcontextprotocol/server-everything` (stdio) for MCP tests, and how to find its processes. */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
/** The server's own entry (its package's bin), run with this node. */
export const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');

/** A stdio config of server-everything whose processes carry `marker` in their environment. */
export function everything(marker: string, env: Record<string, string> = {}) {
  return { type: 'stdio' as const, command: process.execPath, args: [EVERYTHING, 'stdio'], env: { AGENTLOOP_TEST_MARKER: marker, ...env } };
}

/** The pids of the processes whose environment holds `AGENTLOOP_TEST_MARKER=marker`. */
export function processesMarked(marker: string): number[] {
  const needle = `AGENTLOOP_TEST_MARKER=${marker}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits until `check` holds, polling every 50 ms, at most `ms`. */
export async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** test/support/mcpProbeServer.ts over stdio, run with this node through tsx, as a server config. */
export function probe(marker: string) {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const file = fileURLToPath(new URL('./mcpProbeServer.ts', import.meta.url));
  return { type: 'stdio' as const, command: process.execPath, args: ['--import', tsx, file, 'stdio'], env: { AGENTLOOP_TEST_MARKER: marker } };
}

/** test/support/mcpGarbageServer.ts over stdio (a server answering tool calls with garbage), as a server config. */
export function garbage(marker: string) {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const file = fileURLToPath(new URL('./mcpGarbageServer.ts', import.meta.url));
  return { type: 'stdio' as const, command: process.execPath, args: ['--import', tsx, file, 'stdio'], env: { AGENTLOOP_TEST_MARKER: marker } };
}
