/**
 * A CPU profile of one side of benchmark 1 (the in-process turn), for finding what agentloop does per turn that the
 * hand-assembled streaming loop does not:
 *
 *   node --import tsx --cpu-prof --cpu-prof-interval 50 --cpu-prof-dir=/tmp/prof-agentloop bench/profileTurn.ts agentloop 20
 *   node --import tsx --cpu-prof --cpu-prof-interval 50 --cpu-prof-dir=/tmp/prof-events bench/profileTurn.ts plainEvents 20
 *   npx tsx bench/profileSummary.ts /tmp/prof-agentloop 30
 *
 * Runs the side's 50-turn conversation `rounds` times against the one-write-per-reply server (in its own process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIDES, sidesFor, type OverheadSide } from './overhead.js';
import { startRemoteServer } from './serverClient.js';
import { TURNS } from './conversation.js';

const side = (process.argv[2] ?? 'agentloop') as OverheadSide;
const rounds = Number(process.argv[3] ?? 20);
if (!SIDES.includes(side)) throw new Error(`side: one of ${SIDES.join(', ')}`);
const server = await startRemoteServer({ oneWritePerReply: true });
const home = mkdtempSync(join(tmpdir(), 'agentloop-profile-'));
try {
  const runSide = sidesFor(server, () => undefined, home)[side];
  const run = async () => {
    await server.conversation(TURNS);
    await runSide();
  };
  for (let i = 0; i < 3; i++) await run(); // warm-up
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await run();
  console.log(`${side}: ${((performance.now() - started) / rounds / TURNS).toFixed(3)} ms per turn over ${rounds} rounds`);
} finally {
  await server.close();
  rmSync(home, { recursive: true, force: true });
}
