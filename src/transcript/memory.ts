/**
 * What a recorder remembers of its session while it writes: the history (the messages themselves
 * are the run's own objects, shared, not copies), the question not answered yet, and the records
 * since the last model call that a resume needs (tools started or finished, the end of a run).
 * Enough to start the session again elsewhere if its transcript is removed, replaced or cut during
 * the run (recorder.ts): the history is then what `--continue` would have found.
 */
import type { MessageParam } from '../core/messages.js';
import { promptDraft, type Draft } from './drafts.js';
import type { Question } from './records.js';
import type { RestoredConversation } from './resume.js';

export class SessionMemory {
  private readonly messages: MessageParam[] = [];
  private unanswered: Question | undefined;
  private lastRequest: { turnCount: number; messageCount: number } | undefined;
  private resumedAt = 1;
  /** tool_start, tool_result and result records since the last request. */
  private tail: Draft[] = [];

  /** The history a resume goes on from (the records of the resume follow). */
  seed(messages: readonly MessageParam[]): void {
    this.messages.length = 0;
    this.messages.push(...messages);
  }

  /** Takes note of a record being written. */
  note(draft: Draft): void {
    switch (draft.type) {
      case 'message':
        this.messages[draft.index] = draft.message;
        this.unanswered = undefined;
        break;
      case 'prompt':
        this.unanswered = draft.content ?? draft.text;
        break;
      case 'request':
        this.lastRequest = { turnCount: draft.turnCount, messageCount: draft.messageCount };
        this.tail = [];
        break;
      case 'resume':
        this.lastRequest = undefined;
        this.resumedAt = draft.turnCount;
        if (draft.messageCount !== undefined && draft.messageCount < this.messages.length) this.messages.length = draft.messageCount;
        break;
      case 'compact_boundary':
        // The history goes on from the boundary's; nothing was asked since.
        this.seed(draft.messages);
        this.lastRequest = undefined;
        this.resumedAt = draft.turnCount;
        break;
      case 'tool_start':
      case 'tool_result':
      case 'result':
        this.tail.push(draft);
        break;
    }
  }

  /** The history so far, as a resume would restore it (nothing to repair: the records below say the rest). */
  conversation(): RestoredConversation {
    const messages = [...this.messages];
    const request = this.lastRequest;
    const answered = request !== undefined && messages[request.messageCount]?.role === 'assistant';
    return {
      messages,
      recordedCount: messages.length,
      turnCount: request ? request.turnCount + (answered ? 1 : 0) : this.resumedAt,
      repaired: [],
      awaitsModel: messages[messages.length - 1]?.role === 'user',
      problems: [],
      cutAgents: [],
    };
  }

  /** The records after the history that a resume needs: tools of the last call, a run's end, the open question. */
  openDrafts(withPrompt: boolean): Draft[] {
    const prompt = withPrompt && this.unanswered !== undefined ? [promptDraft(this.unanswered)] : [];
    return [...this.tail, ...prompt];
  }
}
