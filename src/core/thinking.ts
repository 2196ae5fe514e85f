/**
 * Extended thinking: the request's `thinking`, as Claude Code 2.1.197 asks for it (read from its bundle). A model
 * that takes a budget gets `{type: "enabled", budget_tokens}`; every newer one (Opus 4.6 and later, Sonnet 4.6 and
 * later, ...) gets `{type: "adaptive"}`, since those refuse or ignore a budget, and the budget there only says "on".
 * The API's own rules are checked before a request is sent (`thinkingProblem`), so a bad setting is one clear line
 * rather than a 400 after the history was built.
 */

/** How the thinking text comes back: `omitted` gives the block with its signature and no text. */
export type ThinkingDisplay = 'summarized' | 'omitted';

/** Thinking asked for by a run (RunConfig.thinking); none: the request has no `thinking`. */
export interface ThinkingSetting {
  /** `budget_tokens` on a model that takes one; none there: max_tokens − 1, as Claude Code. */
  budgetTokens?: number;
  display?: ThinkingDisplay;
}

/** The request's `thinking` (the Messages API's ThinkingConfigParam, the two kinds agentloop sends). */
export type ThinkingParam =
  | { type: 'enabled'; budget_tokens: number; display?: ThinkingDisplay }
  | { type: 'adaptive'; display?: ThinkingDisplay };

/** The API's least `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * The models that take `budget_tokens`, as Claude Code lists them: Claude 3, Opus 4, 4.1 and 4.5, Sonnet 4 and 4.5,
 * Haiku 4.5 (a dated id, `claude-sonnet-4-20250514`, is its family's). Any other model is asked for adaptive thinking.
 */
const BUDGET_MODELS = /claude-3-|claude-opus-4-[015](?!\d)|claude-sonnet-4-[05](?!\d)|claude-haiku-4-5(?!\d)|claude-(?:opus|sonnet)-4(?!-\d(?!\d))/;

export function takesThinkingBudget(model: string): boolean {
  return BUDGET_MODELS.test(model.toLowerCase());
}

/** The `thinking` of a request to `model` whose `max_tokens` is `maxTokens`. */
export function thinkingParam(setting: ThinkingSetting, model: string, maxTokens: number): ThinkingParam {
  const display = setting.display !== undefined ? { display: setting.display } : {};
  if (!takesThinkingBudget(model)) return { type: 'adaptive', ...display };
  return { type: 'enabled', budget_tokens: setting.budgetTokens ?? maxTokens - 1, ...display };
}

/** Why the API would refuse the thinking of this request body, or undefined when it would not. */
export function thinkingProblem(body: { max_tokens: number; thinking?: ThinkingParam; temperature?: unknown }): string | undefined {
  const { thinking } = body;
  if (thinking === undefined) return undefined;
  if (body.temperature !== undefined && body.temperature !== 1) return `temperature ${String(body.temperature)} cannot be sent with thinking (the API takes only 1)`;
  if (thinking.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  if (!Number.isInteger(budget) || budget < MIN_THINKING_BUDGET) return `thinking.budget_tokens ${budget} is below ${MIN_THINKING_BUDGET}, the API's least`;
  if (budget >= body.max_tokens) return `thinking.budget_tokens ${budget} must be less than max_tokens ${body.max_tokens}: thinking counts within max_tokens`;
  return undefined;
}
