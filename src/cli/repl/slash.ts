/**
 * The REPL's slash commands: which line is one, and what `/help`, `/cost` and `/state` print. Pure: the REPL
 * (../commands/repl.ts) runs them and owns the session they talk about.
 */
import { AppendLog } from '../../core/appendLog.js';
import type { MessageParam } from '../../core/messages.js';
import { priceOf } from '../../core/pricing.js';
import type { Usage } from '../../core/usage.js';
import type { AgentOutput } from '../../machine/context.js';
import { buildRequest } from '../../machine/context.js';

export const SLASH_COMMANDS = [
  ['/help', 'this list'],
  ['/clear', 'start a new session (the current one stays saved)'],
  ['/cost', "this session's tokens and cost since the REPL opened it"],
  ['/state', 'the loop state after the last run, next to what the next request body will hold'],
  ['/compact', 'summarize the conversation so far to free the context window (/compact INSTRUCTIONS: what to keep)'],
  ['/permissions', 'the permission mode and every rule in force, with where it came from'],
  ['/exit', 'quit (so do Ctrl-D and, at the prompt, Ctrl-C twice)'],
] as const;

export type SlashName = 'help' | 'clear' | 'cost' | 'state' | 'permissions' | 'exit';

export type SlashCommand = { name: SlashName } | { name: 'compact'; instructions: string } | { name: 'unknown'; text: string };

/**
 * The command a message is, or `undefined` for a question. A command is one line: `/` and a word (`/help`, `/cost
 * now`); a message like `/etc/hosts: what is it?` or a pasted block is a question.
 */
export function parseSlash(message: string): SlashCommand | undefined {
  const match = /^\/([A-Za-z][\w-]*)(?:\s.*)?$/.exec(message.trim());
  if (!match || message.trim().includes('\n')) return undefined;
  const name = (match[1] as string).toLowerCase();
  if (name === 'compact') return { name, instructions: message.trim().slice('/compact'.length).trim() };
  if (SLASH_COMMANDS.some(([command]) => command === `/${name}`)) return { name: name as SlashName };
  return { name: 'unknown', text: `/${match[1] as string}` };
}

export function helpText(): string {
  const width = Math.max(...SLASH_COMMANDS.map(([command]) => command.length));
  const rows = SLASH_COMMANDS.map(([command, what]) => `  ${command.padEnd(width)}  ${what}`);
  return [
    'Commands:',
    ...rows,
    'A line that ends with \\ goes on on the next line; a paste is sent as one message; an empty line sends nothing.',
    'Ctrl-C stops a run; at the prompt it drops the input, and twice quits.',
  ].join('\n');
}

export function unknownText(command: string): string {
  return `unknown command ${command}: /help lists the commands`;
}

/** What the session's runs in this REPL have used so far (a resumed session's earlier runs are not counted). */
export interface SessionCost {
  model: string;
  runs: number;
  modelCalls: number;
  usage: Usage;
  costUsd: number;
}

const count = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

export function costText(cost: SessionCost, sessionId: string | undefined): string {
  const u = cost.usage;
  const price = priceOf(cost.model) ? `$${cost.costUsd.toFixed(4)}` : `$0 (no price known for model ${cost.model})`;
  return [
    `session ${sessionId ?? '(none yet)'}: ${plural(cost.runs, 'question')}, ${plural(cost.modelCalls, 'model call')}`,
    `  input   ${count(u.input_tokens)} tokens (+${count(u.cache_read_input_tokens)} cache read, +${count(u.cache_creation_input_tokens)} cache write)`,
    `  output  ${count(u.output_tokens)} tokens`,
    `  cost    ${price}`,
  ].join('\n');
}

/** The last run's end, as /state shows it. */
export interface LastRun {
  state: string;
  context: AgentOutput;
}

/**
 * The loop's state after the last run, and the body of the next request: the machine's own `buildRequest` on the
 * history with the next question still to come (a new run starts from the configured model, not a fallback).
 */
export function stateText(last: LastRun | undefined, history: readonly MessageParam[], columns = 80): string {
  if (!last) {
    return [
      'loop state: no run yet in this session',
      `next request: the first one is built when you ask (history: ${plural(history.length, 'message')}${rolesOf(history)})`,
    ].join('\n');
  }
  const c = last.context;
  const request = buildRequest({ messages: AppendLog.of(history), config: c.config, model: c.config.model });
  const system = typeof request.system === 'string' ? request.system : (request.system ?? []).map((b) => b.text).join('\n');
  const left = [
    'loop state (last run)',
    `state             ${last.state}`,
    `turnCount         ${c.turnCount}`,
    `transitionReason  ${String(c.transitionReason)}`,
    `exitReason        ${String(c.exitReason)}`,
    `stopReason        ${String(c.stopReason)}`,
    `model             ${c.model}`,
    `messages          ${c.messages.length}`,
    `tokens            ${count(c.usage.input_tokens)} in, ${count(c.usage.output_tokens)} out`,
    `error             ${c.error ? `${c.error.kind}: ${c.error.message}` : 'none'}`,
  ];
  const right = [
    'next request body (+ your next question)',
    `model       ${request.model}`,
    `max_tokens  ${request.max_tokens}`,
    `system      ${system ? `${plural(system.length, 'char')}: ${oneLine(system, 40)}` : 'none'}`,
    `tools       ${(request.tools ?? []).map((t) => t.name).join(', ') || 'none'}`,
    `messages    ${request.messages.length} + 1${rolesOf(request.messages, ', user')}`,
  ];
  return sideBySide(left, right, columns);
}

/** Two columns when the terminal is wide enough, else one after the other. */
function sideBySide(left: string[], right: string[], columns: number): string {
  const width = Math.max(...left.map((l) => l.length)) + 3;
  const rightWidth = Math.max(...right.map((l) => l.length));
  if (width + rightWidth > columns) return [...left, '', ...right].join('\n');
  const rows = Math.max(left.length, right.length);
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) lines.push(`${(left[i] ?? '').padEnd(width)}${right[i] ?? ''}`.trimEnd());
  return lines.join('\n');
}

/** `: user, assistant, user(tool_result)…`: each message's role, and what a user message carries when not text. */
function rolesOf(messages: readonly MessageParam[], tail = ''): string {
  if (messages.length === 0) return tail ? `: ${tail.slice(2)}` : '';
  const roles = messages.map((m) => {
    if (m.role === 'assistant' || typeof m.content === 'string') return m.role;
    return m.content.some((b) => b.type === 'tool_result') ? 'user(tool_result)' : 'user';
  });
  const shown = roles.length > 8 ? [...roles.slice(0, 2), `… ${roles.length - 6} more …`, ...roles.slice(-4)] : roles;
  return `: ${shown.join(', ')}${tail}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
