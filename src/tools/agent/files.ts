/**
 * Claude Code's agent files: `.claude/agents/*.md` of the project and of the user (`$CLAUDE_CONFIG_DIR/agents`,
 * default `~/.claude/agents`), read for the scopes `--setting-sources` names (a project's agent over the user's of the
 * same name). A file is front matter (`name`, `description`, `tools` by commas, `disallowedTools`, `model`,
 * `maxTurns`), then the agent's prompt. A file that is not one is left out and said.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentDefinition } from '../../core/agents.js';
import { agentDefinition } from './definitions.js';

/** The agents of the files, and a line for each file left out. */
export interface AgentFiles {
  agents: Record<string, AgentDefinition>;
  problems: string[];
}

/** The front matter's fields (`key: value` lines, a value quoted or not) and the body after it; undefined without one. */
export function frontMatter(text: string): { fields: Record<string, string>; body: string } | undefined {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text.replace(/^\uFEFF/, ''));
  if (!match) return undefined;
  const fields: Record<string, string> = {};
  for (const line of (match[1] as string).split(/\r?\n/)) {
    const field = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!field) continue;
    const raw = (field[2] as string).trim();
    fields[field[1] as string] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return { fields, body: (match[2] as string).trim() };
}

const list = (text: string | undefined) => (text === undefined || text === '' ? undefined : text.replace(/^\[|\]$/g, '').split(',').map((name) => name.trim().replace(/^["']|["']$/g, '')).filter(Boolean));

/** One file's agent: its name and definition; throws an Error with a one-line message. */
export function agentOfFile(text: string, fileName: string): [string, AgentDefinition] {
  const parsed = frontMatter(text);
  if (!parsed) throw new Error('no front matter (--- name, description ---)');
  const { name = fileName.replace(/\.md$/, ''), description, tools, disallowedTools, model, maxTurns } = parsed.fields;
  const definition = {
    description,
    prompt: parsed.body,
    tools: list(tools),
    disallowedTools: list(disallowedTools),
    model,
    ...(maxTurns !== undefined ? { maxTurns: Number(maxTurns) } : {}),
  };
  return [name, agentDefinition(definition, name)];
}

function readDir(dir: string, into: AgentFiles): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).filter((entry) => entry.endsWith('.md')).sort();
  } catch {
    return; // no such folder
  }
  for (const entry of entries) {
    try {
      const [name, agent] = agentOfFile(readFileSync(join(dir, entry), 'utf8'), entry);
      into.agents[name] = agent;
    } catch (error) {
      into.problems.push(`${join(dir, entry)}: ${(error as Error).message}: left out`);
    }
  }
}

/** The agents of the user's and the project's folders, for the scopes `sources` names (`user`, `project`). */
export function readAgentFiles(cwd: string, sources: readonly string[], env: NodeJS.ProcessEnv): AgentFiles {
  const found: AgentFiles = { agents: {}, problems: [] };
  if (sources.includes('user')) readDir(join(env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude'), 'agents'), found);
  if (sources.includes('project')) readDir(join(cwd, '.claude', 'agents'), found);
  return found;
}
