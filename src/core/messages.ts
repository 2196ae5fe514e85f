/** The conversation's vocabulary: the Messages API's own types, as agentloop uses them. */
import type Anthropic from '@anthropic-ai/sdk';

export type MessageParam = Anthropic.MessageParam;
/** A block of a reply, in the shape it is sent back to the API in `messages`. */
export type ContentBlock = Anthropic.ContentBlockParam;
export type ToolUseBlock = Anthropic.ToolUseBlockParam;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type StopReason = Anthropic.StopReason;

