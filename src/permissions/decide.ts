/**
 * How the gate judges one call, in Claude Code's order:
 * 1. a deny rule that matches denies, in every mode (bypassPermissions too), also a call a hook allowed;
 * 2. an ask rule that matches asks, in every mode (bypassPermissions too; dontAsk denies);
 * 3. a call a hook allowed runs; so does a call of no known tool (the executor answers that it is unknown);
 * 4. bypassPermissions: it runs;
 * 5. a call the tool says only reads runs (default, acceptEdits, plan, dontAsk), if it reads inside the working
 *    directories when the tool can say so (`permission.isReadWithin`: Claude Code asks about a read outside them);
 * 6. plan: nothing else runs (asked about when someone can be asked);
 * 7. acceptEdits: a call that only edits files inside the working directory or an additional one runs;
 * 8. an allow rule that covers it: it runs;
 * 9. else it is asked about (default, acceptEdits), or denied (dontAsk, or nobody to ask).
 * A rule names the tool (`Bash`, `mcp__server`) or a specifier the tool's `permission.matches` reads; a tool without
 * `permission` is denied by every deny rule naming it with one, and allowed by none. A check that throws (the bash
 * parser cannot load) denies.
 */
import { toolCallLine, type PermissionUpdate } from '../core/tool.js';
import type { GateCall, GateDecision, GateState, PermissionGate, SourcedRule } from './gateTypes.js';
import type { ParsedRule } from './ruleText.js';
import { partsOf, rulesAbout, type JudgedParts } from './toolParts.js';

type AddRules = (rules: SourcedRule[]) => PermissionGate;

interface Judged {
  state: GateState;
  call: GateCall;
  parts: JudgedParts;
  /** The rules about this tool. */
  rules: ParsedRule[];
}

export async function decideCall(state: GateState, call: GateCall, addRules: AddRules): Promise<GateDecision> {
  const parts = partsOf(call.tool, call.block.name);
  const j: Judged = { state, call, parts, rules: rulesAbout(state.rules, parts, call.block.name) };
  try {
    return await judge(j, addRules);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { behavior: 'deny', decidedBy: 'mode', rule: null, message: `the permission check failed (${why}): not run` };
  }
}

async function judge(j: Judged, addRules: AddRules): Promise<GateDecision> {
  const { state, call } = j;
  const input = call.block.input;
  const denyRule = await firstMatch(j, 'deny');
  if (denyRule) return { behavior: 'deny', decidedBy: 'rule', rule: denyRule.text, message: `denied by rule ${denyRule.text}` };
  const askRule = await firstMatch(j, 'ask');
  if (askRule) return ask(j, `asked by rule ${askRule.text}`, addRules);
  if (call.preApproved) return { behavior: 'allow', decidedBy: 'hook' };
  if (call.tool === undefined || state.mode === 'bypassPermissions') return { behavior: 'allow', decidedBy: 'mode' };
  if ((await j.parts.isReadOnly?.(input)) && (await readsWithin(j))) return { behavior: 'allow', decidedBy: 'mode' };
  const what = describe(call);
  if (state.mode === 'plan') return ask(j, `not allowed in plan mode: only read-only commands run, and ${what} is not one`, addRules);
  if (state.mode === 'acceptEdits' && (await j.parts.permission?.isEditWithin?.(input, state.dirs))) return { behavior: 'allow', decidedBy: 'mode' };
  if (await allowed(j)) return { behavior: 'allow', decidedBy: 'rule' };
  return ask(j, modeReason(state, what), addRules);
}

/** Whether a read-only call reads inside the working directories (true when its tool cannot say). */
async function readsWithin(j: Judged): Promise<boolean> {
  const check = j.parts.permission?.isReadWithin;
  return check === undefined || (await check(j.call.block.input, j.state.dirs));
}

/** Why neither the rules nor the mode let the call run (the model is told this when nobody is asked). */
function modeReason(state: GateState, what: string): string {
  if (state.rules.some((r) => r.effect === 'allow')) return `not allowed: no allow rule matches ${what} (permission mode ${state.mode})`;
  const runs = state.mode === 'acceptEdits' ? 'read-only commands and file commands inside the working directory' : 'read-only commands';
  return `not allowed in permission mode ${state.mode}: without an allow rule only ${runs} run, and ${what} is not one`;
}

/** The first rule of `effect` that matches the call (deny and ask rules read it broadly: any part of it). */
async function firstMatch(j: Judged, effect: 'deny' | 'ask'): Promise<ParsedRule | undefined> {
  for (const rule of j.rules) {
    if (rule.effect !== effect) continue;
    if (rule.specifier === null || j.parts.permission === undefined) return rule;
    if (await j.parts.permission.matches(rule.specifier, j.call.block.input, 'deny', j.state.dirs)) return rule;
  }
  return undefined;
}

/** Whether the allow rules cover the call: one naming the whole tool, or the specifiers (every part of the call covered). */
async function allowed(j: Judged): Promise<boolean> {
  const rules = j.rules.filter((r) => r.effect === 'allow');
  if (rules.some((r) => r.specifier === null)) return true;
  const permission = j.parts.permission;
  if (rules.length === 0 || permission === undefined) return false;
  const specifiers = rules.map((r) => r.specifier as string);
  const input = j.call.block.input;
  if (permission.allowedBy) return permission.allowedBy(specifiers, input, j.state.dirs);
  for (const specifier of specifiers) if (await permission.matches(specifier, input, 'allow', j.state.dirs)) return true;
  return false;
}

/** Asks whoever the gate asks (dontAsk and a gate with nobody to ask deny with `reason`). */
async function ask(j: Judged, reason: string, addRules: AddRules): Promise<GateDecision> {
  const { state, call } = j;
  const suggestion = suggest(j);
  if (state.asker === undefined || state.mode === 'dontAsk') {
    const byRule = reason.startsWith('asked by rule');
    return { behavior: 'deny', decidedBy: byRule ? 'rule' : 'mode', rule: null, message: reason, ...(suggestion && !byRule ? { suggestion } : {}) };
  }
  const updates = await updatesOf(j, suggestion);
  const answer = await state.asker({ block: call.block, tool: call.tool, reason, ...(suggestion ? { suggestion } : {}), updates, signal: call.signal });
  if (!answer.allow) return { behavior: 'deny', decidedBy: 'asker', rule: null, message: answer.message };
  const gate = answer.rules?.length ? addRules(answer.rules.map((rule) => ({ rule, effect: 'allow' as const, source: 'session' }))) : undefined;
  return { behavior: 'allow', decidedBy: 'asker', ...(answer.input ? { input: answer.input } : {}), ...(gate ? { gate } : {}) };
}

/** The rule that would allow this call: the tool's suggestion, else the tool's name (every call). */
function suggest(j: Judged): string | undefined {
  try {
    return j.parts.permission?.suggestRule?.(j.call.block.input) ?? j.parts.publicName;
  } catch {
    return j.parts.publicName;
  }
}

/** What Claude Code would offer for the call: the tool's own suggestions, else its rule (or the tool), to the local settings. */
async function updatesOf(j: Judged, suggestion: string | undefined): Promise<PermissionUpdate[]> {
  const own = j.parts.permission?.suggestions;
  if (own) return Promise.resolve(own(j.call.block.input, j.state.dirs)).catch(() => []);
  const content = suggestion === undefined ? undefined : /^[^(]*\((.*)\)$/s.exec(suggestion)?.[1];
  return [{ type: 'addRules', rules: [{ toolName: j.parts.publicName, ...(content === undefined ? {} : { ruleContent: content }) }], behavior: 'allow', destination: 'localSettings' }];
}

/** The call in a sentence: a command as written, else the call as its tool shows it (`Write a.md`), else the tool. */
function describe({ block, tool }: GateCall): string {
  const input = block.input as { command?: unknown } | null;
  if (typeof input?.command === 'string') return JSON.stringify(input.command);
  return tool?.display ? JSON.stringify(toolCallLine(tool, block.name, block.input)) : `the tool ${block.name}`;
}
