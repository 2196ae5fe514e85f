/**
 * The tool card (⑤): each tool of the step's turn as it stands at the step: when it started, whether the gate denied
 * it, whether it waits for an approval (a durable run, `view --restate`), runs, or returned; its output wrapped into a
 * tool_result bound to its tool_use_id; where that result is in messages and which request carries it. An Agent
 * call's card steps into its child's run (client/agentScope.ts answers the button).
 */
import type { ToolResultBlockParam } from '../../core/messages.js';
import { commandOf } from '../timeline/facts.js';
import { FINAL_STATES, messagesAt, requestMessages } from '../timeline/history.js';
import type { AnyLine, P } from '../texts/params.js';
import type { Timeline, TimelineAgent, TimelineStep, TimelineTool } from '../timeline/shape.js';
import { defineCard, drawItem, phrasebook, type CardContext, type CardItem, type Kit } from './card.js';
const { texts, line } = phrasebook(
  {
    'card.tool.title': () => 'The tools: tool_use → tool_result',
    'card.tool.stepInto': (p: P) => `Step into ${p.name} ›`,
    'card.tool.startedEarly': (p: P) => `started ${p.time}, while the reply still streamed (read-only: it may start early)`,
    'card.tool.started': (p: P) => `started ${p.time}, at step ${p.step}`,
    'card.tool.running': () => '… running: no result yet at this step',
    'card.tool.waiting': () => '⏸ waiting for approval: it runs once someone approves it from a terminal that reaches Restate (`agentloop approvals` lists it; the approvals card above has the commands)',
    'card.tool.denied': (p: P) => `⛔ denied by the permission gate, never run: ${p.reason}`,
    'card.tool.deniedByRule': (p: P) => `⛔ denied by the permission rule ${p.rule}, never run: ${p.reason}`,
    'card.tool.noResult': (p: P) => `⚠ no result recorded: the run ended (${p.state}) without it`,
    'card.tool.returned': (p: P) => `✓ returned ${p.time} (${p.ms} ms after it started), at step ${p.step}`,
    'card.tool.wrapped': (p: P) => `its output, wrapped into a tool_result bound to tool_use_id ${p.id}:`,
    'card.tool.wrappedUnbound': () => '⚠ wrapped into a tool_result WITHOUT its tool_use_id:',
    'card.tool.whereSent': (p: P) => `→ in messages[${p.index}]: request ${p.number} carries it to the model`,
    'card.tool.whereNotSent': (p: P) => `→ in messages[${p.index}] at this step, but request ${p.number} does not carry it`,
    'card.tool.whereEnded': (p: P) => `→ in messages[${p.index}]: no request follows, the run ended`,
    'card.tool.whereNow': (p: P) => `→ in messages[${p.index}]: the next request is built from messages`,
    'card.tool.whereUnbound': (p: P) => `⚠ the loop wrote it into messages[${p.index}] without its tool_use_id`,
    'card.tool.whereDeleted': (p: P) => `✂ written into messages[${p.index}], then deleted at step ${p.step}: no later request carries it`,
    'card.tool.never': () => '⚠ never written to messages: no request carries it',
    'card.tool.notYet': () => 'not in messages yet: the loop appends the results when every tool of the turn is done',
  },
  {
    'card.tool.title': () => '工具：tool_use → tool_result',
    'card.tool.stepInto': (p: P) => `进入子代理 ${p.name} ›`,
    'card.tool.startedEarly': (p: P) => `${p.time} 开始，回复还在流式输出时（只读：可以提前开始）`,
    'card.tool.started': (p: P) => `${p.time} 开始，在第 ${p.step} 步`,
    'card.tool.running': () => '… 运行中：这一步还没有结果',
    'card.tool.waiting': () => '⏸ 等待批准：有人在能连到 Restate 的终端里批准后才运行（`agentloop approvals` 会列出它；上方的批准卡片给出命令）',
    'card.tool.denied': (p: P) => `⛔ 被权限门拒绝，没有运行：${p.reason}`,
    'card.tool.deniedByRule': (p: P) => `⛔ 被权限规则 ${p.rule} 拒绝，没有运行：${p.reason}`,
    'card.tool.noResult': (p: P) => `⚠ 没有结果记录：运行结束了（${p.state}），它没有结果`,
    'card.tool.returned': (p: P) => `✓ ${p.time} 返回（开始后 ${p.ms} ms），在第 ${p.step} 步`,
    'card.tool.wrapped': (p: P) => `它的输出，包装成绑定 tool_use_id ${p.id} 的 tool_result：`,
    'card.tool.wrappedUnbound': () => '⚠ 包装成了没有 tool_use_id 的 tool_result：',
    'card.tool.whereSent': (p: P) => `→ 在 messages[${p.index}]：请求 ${p.number} 把它带给模型`,
    'card.tool.whereNotSent': (p: P) => `→ 这一步在 messages[${p.index}]，但请求 ${p.number} 没有带上它`,
    'card.tool.whereEnded': (p: P) => `→ 在 messages[${p.index}]：之后没有请求，运行结束了`,
    'card.tool.whereNow': (p: P) => `→ 在 messages[${p.index}]：下一个请求由 messages 构建`,
    'card.tool.whereUnbound': (p: P) => `⚠ 循环把它写进了 messages[${p.index}]，却没有 tool_use_id`,
    'card.tool.whereDeleted': (p: P) => `✂ 写进过 messages[${p.index}]，又在第 ${p.step} 步被删：之后的请求都不带它`,
    'card.tool.never': () => '⚠ 从未写进 messages：没有哪个请求带上它',
    'card.tool.notYet': () => '还不在 messages 里：这一轮的工具都完成后，循环才追加结果',
  },
);

/** The tools of the step's turn up to it (none: no card). */
export function turnStarts(t: Timeline, i: number): TimelineTool[] {
  let from = i;
  while (from > 0 && t.steps[from]?.state !== 'callingModel') from -= 1;
  const step = t.steps[i] as TimelineStep;
  if (step.state === 'callingModel') return [];
  return t.tools.filter((x) => x.kind === 'start' && x.step >= from && x.step <= i);
}

const time = (at: string) => at.slice(11, 23);

export interface ToolEntry {
  start: TimelineTool;
  /**
   * The call as the tool's contract shows it (`$ ls -A`, `Read src/a.ts`), as recorded at its start; an older
   * transcript's start has no such line: then `name` and the command (or the input as JSON).
   */
  head: { name?: string; call: string };
  result: TimelineTool | undefined;
  items: CardItem[];
  /** An Agent call's child run, when the timeline has it. */
  child: TimelineAgent | undefined;
}

/** No result at step `i`: the run ended without it, or the call waits for an approval, or it runs. */
function statusItem(t: Timeline, start: TimelineTool, i: number, context: CardContext): CardItem {
  const state = t.steps[i]?.state ?? '';
  if (FINAL_STATES.has(state)) return { line: line('card.tool.noResult', { state }), testid: 'tool-status', tone: 'err' };
  if (context.waiting.has(start.id)) return { line: line('card.tool.waiting'), testid: 'tool-status', tone: 'why' };
  return { line: line('card.tool.running'), testid: 'tool-status' };
}

/** One tool of the turn as it stands at step `i`. */
export function toolEntry(t: Timeline, start: TimelineTool, i: number, context: CardContext): ToolEntry {
  const result = t.tools.find((x) => x.kind === 'result' && x.id === start.id && x.step <= i);
  const early = t.steps[start.step]?.state === 'callingModel';
  const items: CardItem[] = [{ line: line(early ? 'card.tool.startedEarly' : 'card.tool.started', { time: time(start.at), step: start.step + 1 }) }];
  if (start.denied) items.push({ line: line(start.denied.rule ? 'card.tool.deniedByRule' : 'card.tool.denied', { ...start.denied }), testid: 'tool-denied', tone: 'err' });
  if (!result) items.push(statusItem(t, start, i, context));
  else {
    const ms = Math.max(0, Date.parse(result.at) - Date.parse(start.at));
    items.push({ line: line('card.tool.returned', { time: time(result.at), ms, step: result.step + 1 }), testid: 'tool-status' });
    const bound = typeof result.result?.tool_use_id === 'string';
    items.push({ line: line(bound ? 'card.tool.wrapped' : 'card.tool.wrappedUnbound', { id: result.id }), ...(bound ? {} : { tone: 'err' as const }) });
    items.push(whereItWent(t, start.id, i));
  }
  const head = start.display !== undefined ? { call: start.display } : { name: start.name, call: commandOf(start.input) };
  return { start, head, result, items, child: t.agents?.find((a) => a.toolUseId === start.id) };
}

const resultsOf = (m: { message: { content: unknown } }): ToolResultBlockParam[] =>
  typeof m.message.content === 'string' ? [] : (m.message.content as Array<{ type: string }>).filter((b): b is ToolResultBlockParam => b.type === 'tool_result');

/** Where a tool's result is in messages at step `i`, and whether the next request carries it. */
function whereItWent(t: Timeline, id: string, i: number): CardItem {
  const history = messagesAt(t, i);
  const bound = history.find((m) => resultsOf(m).some((b) => b.tool_use_id === id));
  if (bound) return { line: carried(t, i, bound.index, id), testid: 'tool-where' };
  const broken = history.find((m) => resultsOf(m).some((b) => typeof (b as { tool_use_id?: unknown }).tool_use_id !== 'string'));
  if (broken) return { line: line('card.tool.whereUnbound', { index: broken.index }), testid: 'tool-where', tone: 'err' };
  const deleted = t.messages.find((m) => m.removedAt !== undefined && m.removedAt <= i && resultsOf(m).some((b) => b.tool_use_id === id));
  if (deleted) return { line: line('card.tool.whereDeleted', { index: deleted.index, step: (deleted.removedAt as number) + 1 }), testid: 'tool-where', tone: 'err' };
  let from = i;
  while (from > 0 && t.steps[from]?.state !== 'callingModel') from -= 1;
  const appended = t.steps.slice(from, i + 1).some((s) => s.state === 'appendingResults');
  const ended = FINAL_STATES.has(t.steps[i]?.state ?? '');
  if (appended || ended) return { line: line('card.tool.never'), testid: 'tool-where', tone: 'err' };
  return { line: line('card.tool.notYet'), testid: 'tool-where' };
}

/** messages[k] holds the result: the first request after step `i` carries it, or not; or none follows. */
function carried(t: Timeline, i: number, index: number, id: string): AnyLine {
  const k = t.requests.findIndex((r) => r.step > i);
  const req = t.requests[k];
  if (!req) return FINAL_STATES.has(t.steps.at(-1)?.state ?? '') ? line('card.tool.whereEnded', { index }) : line('card.tool.whereNow', { index });
  const sent = requestMessages(t, req);
  const there = sent.some((m) => resultsOf(m).some((b) => b.tool_use_id === id));
  return line(there ? 'card.tool.whereSent' : 'card.tool.whereNotSent', { index, number: k + 1 });
}

/** The tool_result as written: its fields as JSON, then its content with text as text and images drawn. */
function wrappedResult<N>(kit: Kit<N>, result: TimelineTool['result']): N[] {
  const { content, ...fields } = result ?? ({} as NonNullable<TimelineTool['result']>);
  const shape = typeof content === 'string' ? 'text' : `${content?.length ?? 0} block${content?.length === 1 ? '' : 's'}`;
  return [kit.h('pre', { class: 'json', text: JSON.stringify({ ...fields, content: `‹${shape}›` }, null, 1) }), kit.h('div', { class: 'result-content', 'data-testid': 'tool-content' }, kit.content(content))];
}

function toolBox<N>(kit: Kit<N>, entry: ToolEntry): N {
  const lines: N[] = entry.items.map((it) => drawItem(kit, it));
  // The wrapped result follows the line that announces it.
  const at = entry.items.findIndex((it) => it.line?.key.startsWith('card.tool.wrapped'));
  if (at >= 0) lines.splice(at + 1, 0, ...(entry.result ? wrappedResult(kit, entry.result.result) : []));
  const { start, head, child } = entry;
  return kit.h('div', { class: 'tool-entry', 'data-tool': start.id, 'data-group': start.id }, [
    kit.h('div', { class: 'tool-head', 'data-testid': 'tool-head' }, [
      ...(head.name !== undefined ? [kit.h('b', { text: head.name }), ' '] : []),
      kit.h('code', { text: head.call }),
      kit.h('span', { class: 'chip', text: start.id }),
    ]),
    child ? kit.h('button', { class: 'step-into', 'data-testid': 'step-into', 'data-step-into': child.toolUseId, text: kit.say(line('card.tool.stepInto', { name: child.agentType })) }) : null,
    ...lines,
  ]);
}

export const toolCard = defineCard<ToolEntry[]>({
  name: 'tool',
  texts,
  facts(t, i, context) {
    const starts = turnStarts(t, i);
    return starts.length ? starts.map((s) => toolEntry(t, s, i, context)) : null;
  },
  lines: (entries) => entries.map((e) => ({ group: e.start.id, items: e.items })),
  draw: (entries, kit) => [kit.h('h2', {}, [kit.h('span', { class: 'mark', text: '⑤' }), kit.say(line('card.tool.title'))]), ...entries.map((e) => toolBox(kit, e))],
});
