/**
 * The permission question's suggestions, in agentloop as in Claude Code 2.1.197: each case of ./suggestionCases.ts run
 * by agentloop's CLI as the Agent SDK runs it (stream-json, `--permission-prompt-tool stdio`, the default mode), beside
 * Claude Code's recorded `can_use_tool` questions (./claudeSuggestions.json, recorded by ./recordSuggestions.ts): the
 * same tools asked about, with the same `permission_suggestions` (the rule, the mode, the folders), for Write, Edit,
 * Read, Glob, Grep and Bash.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startCheckedServer } from '../support/agentServer.js';
import { CLI, cliEnv } from '../support/cli.js';
import { ARGS, askedQuestions, CASES, setUp, stepsFor, type Question } from './suggestionCases.js';

const recorded = JSON.parse(readFileSync(new URL('./claudeSuggestions.json', import.meta.url), 'utf8')) as { cases: Record<string, Question[]> };

describe("a permission question suggests what Claude Code's does", () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const server = await startCheckedServer();
    onTestFinished(() => server.close());
    const f = setUp();
    onTestFinished(() => rmSync(dirname(f.home), { recursive: true, force: true }));
    server.enqueue(...stepsFor(c, f));
    const env = cliEnv({ HOME: f.home, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test' }) as Record<string, string>;
    const asked = await askedQuestions(process.execPath, [CLI, ...ARGS], f, env);
    expect(asked).toEqual(recorded.cases[c.name]);
  });
});
