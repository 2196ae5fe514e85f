/**
 * Runs a mistake's demo twice with the same scripted model and the real bash tool: once with the
 * real machine, once with the mistaken one; both are saved as sessions (to step through side by
 * side: `agentloop view --compare`). The model call goes through `checkedByApi`, so an invalid
 * request fails as the API would fail it.
 */
import type { RunEvent } from '../core/events.js';
import { toolLookup, type ToolLookup } from '../core/tool.js';
import type { MessageParam } from '../core/messages.js';
import type { ExitReason } from '../core/outcome.js';
import { appendUserText } from '../history/messages.js';
import type { AgentMachine } from '../machine/agentMachine.js';
import { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../scripted/demo.js';
import { chapterTools } from '../run/defaultTools.js';
import { runAgent } from '../run/runAgent.js';
import { checkedByApi, verdictOf, type Verdict } from './api.js';
import { mistakeOf, type Mistake } from './catalog.js';
import type { MistakeName } from './names.js';

/** A question asked after the run, to see whether its saved history can go on. */
export const NEXT_QUESTION = 'Which of these is the largest?';

export interface SentRequest {
  turnCount: number;
  /** The messages as they were sent (a copy). */
  messages: MessageParam[];
}

export interface DemoRun {
  sessionId: string;
  exitReason: ExitReason | null;
  /** The text of the last assistant message. */
  text: string;
  error: string | undefined;
  requests: SentRequest[];
  /** The first request the API refused, and why (none: every request was accepted). */
  refused: { index: number; request: SentRequest; verdict: Verdict } | undefined;
  /** The commands the bash tool started. */
  commands: string[];
  /** The history the session saved. */
  messages: MessageParam[];
  /** What the API would say to the next question in this session. */
  next: Verdict;
}

export interface MistakeRun {
  mistake: Mistake;
  mistaken: DemoRun;
  correct: DemoRun;
}

export interface RunMistakeOptions {
  /** The demo's working directory (the bash tool runs there). */
  cwd: string;
  /** `$AGENTLOOP_HOME`: where both sessions are saved. */
  home: string;
  /** Receives the mistaken run's events (to show its progress), and its tools by name (to show a call as its tool does). */
  onEvent?: (event: RunEvent, tools: ToolLookup) => void;
}

async function runDemo(mistake: Mistake, machine: AgentMachine | undefined, options: RunMistakeOptions, onEvent?: RunMistakeOptions['onEvent']): Promise<DemoRun> {
  const requests: SentRequest[] = [];
  const commands: string[] = [];
  const tools = chapterTools({ cwd: options.cwd });
  const lookup = toolLookup(tools);
  const result = await runAgent(DEMO_PROMPT, {
    model: DEMO_MODEL_ID,
    modelCall: checkedByApi(demoModel(mistake.demo).call),
    cwd: options.cwd,
    tools,
    session: { home: options.home, label: machine ? `mistake ${mistake.name}` : `correct run (for mistake ${mistake.name})` },
    ...(machine ? { machine } : {}),
    ...(mistake.demo?.maxTurns !== undefined ? { maxTurns: mistake.demo.maxTurns } : {}),
    onEvent: (event) => {
      if (event.type === 'request') requests.push({ turnCount: event.turnCount, messages: structuredClone(event.body.messages.slice(0, event.messageCount)) });
      if (event.type === 'tool_start') commands.push(String((event.block.input as { command?: unknown }).command));
      onEvent?.(event, lookup);
    },
  });
  const index = requests.findIndex((r) => verdictOf(r.messages).problems.length > 0 || verdictOf(r.messages).apiError !== undefined);
  const refusedRequest = requests[index];
  const messages = result.context.messages;
  return {
    sessionId: result.sessionId,
    exitReason: result.context.exitReason,
    text: result.text,
    error: result.context.error?.message,
    requests,
    refused: refusedRequest ? { index, request: refusedRequest, verdict: verdictOf(refusedRequest.messages) } : undefined,
    commands,
    messages,
    next: verdictOf(appendUserText(messages, NEXT_QUESTION)),
  };
}

/** The correct run first (quietly), then the mistaken one. */
export async function runMistake(name: MistakeName, options: RunMistakeOptions): Promise<MistakeRun> {
  const mistake = mistakeOf(name);
  const correct = await runDemo(mistake, undefined, options);
  const mistaken = await runDemo(mistake, mistake.machine, options, options.onEvent);
  return { mistake, mistaken, correct };
}
