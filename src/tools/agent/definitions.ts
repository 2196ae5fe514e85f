/**
 * Agent definitions as Claude Code takes them (`--agents JSON`, the Agent SDK's `agents` in `initialize`, the front
 * matter of `.claude/agents/*.md`: ./files.ts): `description` and `prompt` (strings), `tools` and `disallowedTools`
 * (names), `model` (an alias, an id or `inherit`), `maxTurns`. A field agentloop does not apply is refused, naming it:
 * never ignored in silence.
 */
import type { AgentDefinition, AgentDefinitions } from '../../core/agents.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a value says nothing (the SDK sends unset fields as absent, null, false or empty). */
const isEmpty = (value: unknown) => value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function names(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name.trim() === '')) throw new Error(`${where} must be a list of tool names`);
  return value.map((name: string) => name.trim());
}

/** One agent's definition from `value`; throws an Error with a one-line message naming `where` (`agents.reviewer`). */
export function agentDefinition(value: unknown, where: string): AgentDefinition {
  if (!isObject(value)) throw new Error(`${where} must be an object with a description and a prompt`);
  const { description, prompt, tools, disallowedTools, model, maxTurns, ...rest } = value;
  const unknown = Object.keys(rest).filter((key) => !isEmpty(rest[key]));
  if (unknown.length > 0) throw new Error(`agentloop does not support ${unknown.map((key) => `${where}.${key}`).join(', ')}`);
  if (typeof description !== 'string' || description.trim() === '') throw new Error(`${where}.description must be a non-empty string`);
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new Error(`${where}.prompt must be a non-empty string`);
  if (!isEmpty(model) && typeof model !== 'string') throw new Error(`${where}.model must be a model name`);
  if (!isEmpty(maxTurns) && (typeof maxTurns !== 'number' || !Number.isInteger(maxTurns) || maxTurns < 1)) throw new Error(`${where}.maxTurns must be a whole number above 0`);
  return {
    description,
    prompt,
    ...(isEmpty(tools) && !Array.isArray(tools) ? {} : { tools: names(tools, `${where}.tools`) }),
    ...(isEmpty(disallowedTools) ? {} : { disallowedTools: names(disallowedTools, `${where}.disallowedTools`) }),
    ...(typeof model === 'string' && model !== '' ? { model } : {}),
    ...(typeof maxTurns === 'number' ? { maxTurns } : {}),
  };
}

/** Agents by name from `value` (a JSON object of definitions); throws an Error with a one-line message. */
export function agentDefinitions(value: unknown, where = 'agents'): AgentDefinitions {
  if (!isObject(value)) throw new Error(`${where} must be an object of agents by name`);
  const agents: Record<string, AgentDefinition> = {};
  for (const [name, definition] of Object.entries(value)) {
    if (!NAME.test(name)) throw new Error(`${where}: ${JSON.stringify(name.slice(0, 40))} is not an agent name (letters, digits, _ . -)`);
    agents[name] = agentDefinition(definition, `${where}.${name}`);
  }
  return agents;
}
