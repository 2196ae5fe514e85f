/**
 * 中文课程文本：与 en.ts 同样的键（缺一个键，测试就失败）。用词跟着章节走：循环（loop）、轮（turn）、
 * state、messages、tool_use、tool_result、stop_reason、Harness；字段名和 id 原样保留。
 */
import type { en } from './en.js';
import type { Params, Text } from './params.js';
import { zhPage } from './zhPage.js';

type P = Params & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const reasonText = (p: P) => (p.reason ? `，transitionReason 为 ${p.reason}` : '');
const exitText = (p: P) => (p.exit ? `（exitReason ${p.exit}）` : '');
const blocks = (p: P) => (p.count ? `${p.count} 个 tool_use 块（${p.uses}）` : '没有 tool_use 块');

/** The same keys as en.ts (line.ts's `Catalogue`). */
export const zh: Record<keyof typeof en, Text> = {
  'say.noRequest': (p: P) => `循环要调用模型（第 ${p.turn} 轮${reasonText(p)}）；这次调用还没有请求的记录。`,
  'say.request': (p: P) => `循环把请求 ${p.number} 发给模型：state.messages（${p.count} 条消息）加上工具定义（第 ${p.turn} 轮${reasonText(p)}）。`,
  'say.requestLost': (p: P) => `它带的 ${p.count} 条消息里有 ${p.lost} 条无法从 transcript 读出。`,
  'say.delta': (p: P) => `也就是：${p.delta}。`,
  'say.deltaSame': (p: P) => `它带的消息与请求 ${p.prev} 相同。`,
  'say.requestBroken': (p: P) => `它带着 messages[${p.index}]，其中有${p.what}。`,
  'say.requestInvalid': (p: P) => `它发出的历史不合法：${p.problem}。`,
  'say.resumed': () => '会话被恢复。',
  'say.prompt': (p: P) => `Prompt 被写进 state，成为 messages[${p.index}]。`,
  'say.deleted': (p: P) => `调用之前，循环从 state.messages 里删掉了 ${p.list}。`,
  'say.earlyStart': (p: P) => `${p.call} 在回复还在流式输出时就开始运行。`,
  'say.replyUnknown': () => '回复到了。',
  'say.reply': (p: P) => `回复到了，成为 messages[${p.index}]：stop_reason 为 ${p.stopReason}，${blocks(p)}。`,
  'say.replyNotAppended': (p: P) =>
    `回复到了：stop_reason 为 ${p.stopReason}，${blocks(p)}${p.seen ? '（从开始运行的工具看出）' : ''}；但循环没有把它追加进去：state.messages 仍然止于 messages[${p.last}]。`,
  'say.flag': (p: P) => `needsFollowUp 为 ${p.value}。`,
  'say.teachingDisagrees': (p: P) => `教学版的判断（stop_reason == "tool_use"）会${p.runs ? '去执行工具' : '在这里停下'}，与 tool_use 块不一致。`,
  'say.goesOn': () => '所以循环继续：去执行工具。',
  'say.stops': () => '所以循环在这里停下。',
  'say.continues': () => '所以循环请模型接着写（生产路径）。',
  'say.toolReturns': (p: P) => `${p.call} 返回了${p.early ? '（它在回复流式输出时就已开始）' : ''}；输出被包装成 tool_result，绑定 tool_use_id ${p.id}${p.error ? '（is_error）' : ''}。`,
  'say.toolReturnsUnbound': (p: P) => `${p.call} 返回了${p.early ? '（它在回复流式输出时就已开始）' : ''}；输出被包装成 tool_result，但没有 tool_use_id${p.error ? '（is_error）' : ''}。`,
  'say.toolStarts': (p: P) => `${p.call} 开始运行。`,
  'say.toolsNone': () => '循环在等这条回复要的工具；这一步还没有工具返回。',
  'say.appends': (p: P) => `循环追加 ${p.what}；transitionReason 为 ${p.reason}。`,
  'say.joins': (p: P) => `循环写入 ${p.what}，并进已有的那条 user 消息；transitionReason 为 ${p.reason}。`,
  'say.notAppended': (p: P) => `${p.ids} 的结果没有被追加：state.messages 仍然只有 ${p.count} 条消息；transitionReason 为 ${p.reason}。`,
  'say.nothingAppended': (p: P) => `什么都没有追加：state.messages 保持 ${p.count} 条消息；transitionReason 为 ${p.reason}。`,
  'write.unbound': (p: P) => `messages[${p.index}]，其中有 ${p.count} 个没有 tool_use_id 的 tool_result`,
  'write.goOn': (p: P) => `messages[${p.index}]，请模型接着写`,
  'write.results': (p: P) => `messages[${p.index}]（${p.count} 个 tool_result 块，对应 ${p.ids}）`,
  'what.unbound': () => '一个没有 tool_use_id 的 tool_result',
  'say.retry': (p: P) => `模型调用失败（${p.error}）；可以重试，所以循环等 ${p.delay} ms 再做第 ${p.attempt} 次尝试。`,
  'say.retryUnknown': () => '模型调用失败，可以重试：循环等一会儿再调用。',
  'say.aborted': (p: P) => `运行被中断：正在运行的工具被停下并得到回答，历史保持合法${exitText(p)}。`,
  'say.enters': (p: P) => `状态机进入 ${p.state}。`,
  'say.leavesInvalid': (p: P) => `它留下的历史不合法：${p.problem}。`,
  'say.maxTurns': (p: P) => `运行已做完允许的最后一次模型调用（第 ${p.turn} 轮）：以 done 结束${exitText(p)}。`,
  'say.budget': (p: P) => `运行的花费超过了预算：以 done 结束${exitText(p)}。`,
  'say.refusal': (p: P) => `模型拒绝了（stop_reason refusal）：运行以 done 结束${exitText(p)}。`,
  'say.maxTokens': (p: P) => `连续续写到上限后，回复仍被 max_tokens 截断：运行以 done 结束${exitText(p)}。`,
  'say.answer': (p: P) => `运行以 done 结束${exitText(p)}：循环把 messages[${p.index}] 的文字交给用户${p.quote ? `（“${p.quote}”）` : ''}。`,
  'say.ends': (p: P) => `运行以 done 结束${exitText(p)}。`,
  'say.tooLong': (p: P) => `API 说 prompt 太长；再调用也没用，运行以 failed 结束${exitText(p)}。`,
  'say.runnerCrashed': (p: P) => `工具执行层本身崩溃了；每个未回答的 tool_use 都得到一个错误，运行以 failed 结束${exitText(p)}。`,
  'say.modelFailed': (p: P) => `模型调用失败${p.error ? `（${p.error}）` : ''}且不能重试，运行以 failed 结束${exitText(p)}。`,
  delta: (p: P) =>
    !p.added && !p.changed && !p.deleted
      ? `请求 ${p.number}：与请求 ${p.prev} 的消息相同`
      : `请求 ${p.number} = 请求 ${p.prev}${[p.added ? ` + ${p.added}` : '', p.changed ? `${p.added ? '，' : ''}其中 ${p.changed} 被改写` : '', p.deleted ? `${p.added || p.changed ? '，' : ''}删掉了 ${p.deleted}` : ''].join('')}`,
  'delta.first': () => '请求 1：第一个请求',

  'why.state': () => '为什么：state 比请求大。turnCount 和 transitionReason 留在循环里；request body 只带 messages（加上 system 和工具定义）。',
  'why.onlyAsks': () => '为什么：模型只负责提出。tool_use 块只是它的意图，它自己什么也不运行；执行工具、写回 tool_result 是 Harness 的事。',
  'why.streaming': () => '为什么：流式响应中 stop_reason 最后才到，回复里已有 tool_use 块时它也可能不是 tool_use；所以生产版（Claude Code）看到 tool_use 块就继续（needsFollowUp），而不是看 stop_reason。',
  'why.streamingCard': () => '为什么有两种判断：流式响应中 stop_reason 最后才到，所以生产版跟着到达的 tool_use 块走。',
  'why.noToolUse': () => '为什么：没有 tool_use 块，就没有要执行的：教学版循环停下。这是它唯一的出口。',
  'why.bound': () => '为什么：tool_use_id 把 tool_result 绑定到它回答的那次调用；模型靠它分清哪条输出对应哪次调用。',
  'why.append': () => '为什么：不在 messages 里的，模型永远看不到。tool_result 必须在下一次调用前写回。',
  'why.memory': () => '为什么：LLM 本身没有记忆。它能“知道”之前发生了什么，完全靠这次请求把完整的 messages[] 整个再发一遍。',
  'why.forgets': () => '为什么：LLM 本身没有记忆。这次请求没带上的，它就再也不会知道。',
  'why.wholeAgent': () => '为什么：一个循环 + 一个 Bash 工具就是整个 Agent。后面的章节都在这个循环上叠加，循环本身不变。',

  'title.asks': () => 'LLM 说“我要调工具”',
  'title.answers': () => 'LLM 给出回答',
  'title.first': () => 'Prompt → messages → 模型',
  'title.calls': () => 'Agent 调用 LLM',
  'title.callsAgain': () => 'Agent 再次调用 LLM',
  'title.productionCall': (p: P) => `生产路径：再次调用（${p.reason}）`,
  'title.runs': () => 'Agent 真正执行工具',
  'title.append': () => '工具结果写回 state',
  'title.productionPath': (p: P) => `生产路径：${p.reason}`,
  'title.answer': () => 'Agent 把答案返回给用户',
  'title.productionExit': (p: P) => `生产路径的出口：${p.exit}`,
  'title.retry': () => '生产路径：等待，然后重试',
  'title.compacting': () => '生产路径：压缩历史（上下文窗口快满了）',

  ...zhPage,
};
