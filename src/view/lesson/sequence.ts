/**
 * A Mermaid sequence diagram of a run, written from its `RunEvent`s: who talks to whom (user,
 * agent loop, machine state, model, tool) and how `messages`, `turnCount` and `transitionReason`
 * change on the way. `npm run diagrams` draws the two-turn example with it from a real run.
 */
import { toolResultText, type MessageParam } from '../../core/messages.js';
import type { RunEvent } from '../../core/events.js';

export interface SequenceOptions {
  prompt: string;
  /** The final answer shown to the user (default: the last assistant text). */
  answer?: string;
  /** Longest text shown in one arrow label. */
  maxLabel?: number;
}

/** Mermaid sequence labels cannot hold `;`, `#` or line breaks as they are. */
function label(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/[#;]/g, (c) => (c === '#' ? '#35;' : '#59;'));
}

function describeMessage(message: MessageParam): string {
  if (typeof message.content === 'string') return `${message.role}: text`;
  const parts = message.content.map((b) => {
    if (b.type === 'tool_use') return `tool_use ${b.name}`;
    if (b.type === 'tool_result') return `tool_result${b.is_error ? ' (error)' : ''}`;
    return b.type;
  });
  return `${message.role}: ${parts.join(' + ')}`;
}

function textOf(message: MessageParam): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
}

/** What the walk over the events remembers: the state the machine is in, the last text the model wrote. */
interface Walk {
  state: string;
  lastAnswer: string;
  max: number;
}

/** The lines of a `message` event: the model's reply (when it is one), then its place in `messages`. */
function messageLines(event: Extract<RunEvent, { type: 'message' }>, walk: Walk): string[] {
  const { message, index } = event;
  const lines: string[] = [];
  if (message.role === 'assistant') {
    const text = textOf(message);
    if (text) walk.lastAnswer = text;
    const uses = typeof message.content === 'string' ? [] : message.content.filter((b) => b.type === 'tool_use');
    const what = uses.length ? uses.map((u) => `tool_use ${u.name} ${label(JSON.stringify(u.input), 30)}`).join(', ') : `"${label(text, walk.max - 10)}"`;
    lines.push(`  MD-->>AL: ${what}`);
  }
  lines.push(`  AL->>ST: messages[${index}] = ${label(describeMessage(message), walk.max)}`);
  return lines;
}

/** The lines one event adds to the diagram (none for events it does not draw). */
function eventLines(event: RunEvent, walk: Walk): string[] {
  switch (event.type) {
    case 'message':
      return messageLines(event, walk);
    case 'transition':
      walk.state = event.state;
      return [`  Note over ST: ${event.state} · turnCount ${event.turnCount} · transitionReason ${event.transitionReason ?? 'null'}`];
    case 'request':
      return [`  AL->>MD: POST /v1/messages · turn ${event.turnCount} · ${event.messageCount} message${event.messageCount === 1 ? '' : 's'}`];
    case 'tool_start': {
      const input = event.block.input as { command?: unknown };
      const call = event.display ?? (typeof input.command === 'string' ? input.command : JSON.stringify(input));
      const early = walk.state === 'callingModel' ? ['  Note over AL,TL: read-only: starts while the reply still streams'] : [];
      return [...early, `  AL->>TL: ${label(call, walk.max)}`];
    }
    case 'tool_result': {
      return [`  TL-->>AL: ${label(toolResultText(event.result.content), walk.max)}`];
    }
    case 'retry':
      return [`  Note over AL: retry ${event.attempt} in ${event.delayMs} ms`];
    default:
      return [];
  }
}

export function sequenceDiagram(events: readonly RunEvent[], options: SequenceOptions): string {
  const walk: Walk = { state: '', lastAnswer: '', max: options.maxLabel ?? 60 };
  const lines = [
    'sequenceDiagram',
    '  autonumber',
    // Short ids: `loop`, `end`, `note`... are keywords of the sequence syntax.
    '  actor US as User',
    '  participant AL as Agent loop (runAgent)',
    '  participant ST as Machine state',
    '  participant MD as Model',
    '  participant TL as Tools',
    `  US->>AL: ${label(options.prompt, walk.max)}`,
    ...events.flatMap((event) => eventLines(event, walk)),
  ];
  lines.push(`  AL-->>US: ${label(options.answer ?? walk.lastAnswer, walk.max)}`);
  return `${lines.join('\n')}\n`;
}
