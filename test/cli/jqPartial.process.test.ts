/**
 * Issue 27's own filter: `jq '.event.delta.text'` on `-p --output-format stream-json --verbose
 * --include-partial-messages`, run through the real jq in a shell pipeline, prints line for line what it prints on
 * Claude Code 2.1.197's stream for the same reply (test/cli/sdk/claudeCode.json, 'partial messages': each message's
 * `.event.delta.text`, recorded from Claude Code by test/cli/sdk/record.ts; Claude Code's bookkeeping lines left out, as
 * in the sequences). Before the collision fix a `transition` line's string `event` made jq fail on `.delta`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import type { Recorded } from './sdk/record.js';
import { SCENARIOS } from './sdk/scenarios.js';

const exec = promisify(execFile);
const claudeCode = JSON.parse(readFileSync(new URL('./sdk/claudeCode.json', import.meta.url), 'utf8')) as { scenarios: Record<string, Recorded> };

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('jqpartial', (p) => { project = p; server = p.server; }, { noViolations: true });

/** The CLI's stdout into `filter`, as a script runs it (stdin empty). jq's stdout, or the pipeline's failure. */
async function pipe(filter: string): Promise<string> {
  const run = `set -o pipefail; node ${CLI} -p stream --output-format stream-json --verbose --include-partial-messages < /dev/null | ${filter}`;
  return (await exec('bash', ['-c', run], { cwd: project.dir, env: project.env })).stdout;
}

describe("jq '.event.delta.text' on --include-partial-messages", () => {
  it("prints the streamed text line for line as on Claude Code's stream", async () => {
    const scenario = SCENARIOS.find((s) => s.name === 'partial messages')!;
    const expected = claudeCode.scenarios['partial messages']?.facts as (string | null)[];
    expect(expected.filter((t) => t !== null).join('')).toBe('Streamed words.'); // the recording holds the reply's deltas
    server.enqueue(...scenario.replies);
    // The recording leaves Claude Code's bookkeeping lines out (scenarios.ts IGNORED: system/status, which both write
    // once a model call with partial messages): so are agentloop's here, before the user's filter.
    const out = await pipe(`grep -v '"subtype":"status"' | jq '.event.delta.text'`);
    expect(out.trimEnd().split('\n').map((line) => JSON.parse(line) as string | null)).toEqual(expected);

    // The usual way to print the text as it streams.
    server.enqueue(...scenario.replies);
    expect(await pipe(`jq -j 'select(.type=="stream_event") | .event.delta.text // empty'`)).toBe('Streamed words.');
  });
});
