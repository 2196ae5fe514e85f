/**
 * The simulator's run (issue 39): the real machine (agentMachine, as runAgent plugs it in: run/actors.ts) against a
 * scripted model that plays the learner's replies and a stand-in bash that prints the scripted outputs. Every event
 * the machine emits becomes the record the recorder would write (transcript/drafts.ts's draftOf), so the page draws
 * the run with the code it draws transcripts with (timeline/build.ts). Pure: no I/O, it runs in a browser page.
 */
import { createActor, toPromise } from 'xstate';
import type { RunEvent } from '../../core/events.js';
import { defaultSystemPrompt } from '../../core/prompts.js';
import { toolDefinition, type Tool } from '../../core/tool.js';
import { appendUserText } from '../../history/messages.js';
import { historyProblems } from '../../history/validate.js';
import { createAgentMachine } from '../../run/actors.js';
import { describedEvents } from '../../run/toolStarts.js';
import { BASH_PUBLIC_NAME, BASH_TOOL_NAME } from '../../tools/bash/names.js';
import { scriptedModel, type ScriptedReply } from '../../scripted/model.js';
import { draftOf, resultDraft, type Draft } from '../../transcript/drafts.js';
import { TRANSCRIPT_VERSION, type SessionHeader } from '../../transcript/records.js';
import type { AnyRecord } from '../timeline/shape.js';
import type { SimOutput, SimOutputs, SimScript } from './script.js';

export const SIM_CWD = '/home/learner/project';
export const SIM_MODEL = 'scripted-simulator';

export interface Simulation {
  records: AnyRecord[];
  /** Why nothing ran (a history the API would refuse), as runAgent says it. */
  refused?: string;
}

/** The stand-in bash: the chapter's tool by name and input, its output taken from the script. */
export function standInBash(outputs: SimOutputs): Tool {
  return {
    name: BASH_TOOL_NAME,
    publicName: BASH_PUBLIC_NAME,
    description: 'Run a shell command (the simulator prints the output the script gives for it).',
    inputSchema: { type: 'object', properties: { command: { type: 'string', description: 'The command to run' } }, required: ['command'] },
    display: { call: (input) => `$ ${String((input as { command?: unknown }).command ?? '')}` },
    run(input) {
      const command = String((input as { command?: unknown }).command ?? '');
      const scripted: string | SimOutput | undefined = Object.hasOwn(outputs, command) ? outputs[command] : undefined;
      if (scripted === undefined) return Promise.resolve({ content: `the script gives no output for: ${command}`, isError: true });
      if (typeof scripted === 'string') return Promise.resolve({ content: scripted, isError: false });
      return Promise.resolve({ content: scripted.output, isError: scripted.is_error === true });
    },
  };
}

const toScripted = (r: SimScript['replies'][number]): ScriptedReply => ({ content: r.content, stop_reason: r.stop_reason, ...(r.cut_block ? { cutBlock: r.cut_block } : {}) });

/** Plays `script` on the machine; the records a transcript of that run would hold, in order. */
export async function simulate(script: SimScript, now: () => Date = () => new Date()): Promise<Simulation> {
  const records: AnyRecord[] = [];
  const write = (draft: Draft) => records.push({ ...draft, at: now().toISOString() } as AnyRecord);
  const id = `sim-${now().getTime().toString(16)}`;
  const header: SessionHeader = { type: 'session', version: TRANSCRIPT_VERSION, id, cwd: SIM_CWD, createdAt: now().toISOString(), model: SIM_MODEL, label: 'simulator' };
  records.push(header);
  const messages = appendUserText(script.history ?? [], script.prompt);
  const problems = historyProblems(messages);
  if (problems.length > 0) return { records, refused: `invalid history: ${problems.join('; ')}` };
  write({ type: 'prompt', text: script.prompt });
  const started = Date.now();
  const tools = [standInBash(script.bash)];
  // Each tool_start with its display line, as runAgent records it (run/toolStarts.ts): the page shows `$ ls -A`.
  const described = describedEvents(tools);
  const emit = (event: RunEvent) => {
    const draft = draftOf(described(event));
    if (draft) write(draft);
  };
  const machine = createAgentMachine({ model: scriptedModel(script.replies.map(toScripted)).call, tools, cwd: SIM_CWD, onCallEvent: emit });
  const actor = createActor(machine, {
    input: { messages, config: { model: SIM_MODEL, system: defaultSystemPrompt(SIM_CWD), tools: tools.map(toolDefinition), maxTurns: 20 }, seed: 1 },
  });
  actor.on('*', emit);
  const index = messages.length - 1;
  emit({ type: 'message', index, message: messages[index] as (typeof messages)[number], origin: 'prompt' });
  try {
    actor.start();
    const context = await toPromise(actor);
    write(resultDraft({ state: leafState(actor.getSnapshot().value), context, durationMs: Date.now() - started }));
  } finally {
    actor.stop();
  }
  return { records };
}

/** The leaf state of a snapshot value (`done` for `done`, `callingModel` for `{ turn: 'callingModel' }`). */
function leafState(value: unknown): string {
  let current = value;
  while (current && typeof current === 'object') current = Object.values(current)[0];
  return String(current);
}
