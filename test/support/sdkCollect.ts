/**
 * Every message an Agent SDK program receives from the built CLI run in a test project. The SDK throws after an error
 * result (Claude Code's way too): the error is kept as `thrown`, next to the messages that came before it.
 */
import { query, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { CLI } from './cli.js';
import type { CliProject } from './project.js';

export async function collectSdk(project: CliProject, prompt: string, extra: Options = {}): Promise<{ messages: SDKMessage[]; thrown?: string }> {
  const messages: SDKMessage[] = [];
  try {
    for await (const message of query({ prompt, options: { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, ...extra } })) messages.push(message);
  } catch (error) {
    return { messages, thrown: String(error) };
  }
  return { messages };
}
