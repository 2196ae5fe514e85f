/**
 * After a summary, the files the conversation read are read again and attached (history/compactFiles.ts: which,
 * in what order, within what limits). Each is read by the run's own Read tool, so its rules hold: the file guard
 * (what it refuses is an error, never attached), its size limits, its numbered lines. A durable run's tools are
 * journalled (durable/journal.ts), so these reads are steps of the journal like the model's: a replay attaches the
 * same content. The reads go one after another, in the plan's order, for the same reason. A file the run's
 * permission rules deny reading (`Read(secret/**)`) is never read: Claude Code's compaction skips those too.
 */
import type { MessageParam } from '../core/messages.js';
import type { DenyRule, Tool } from '../core/tool.js';
import { absolutePath, filesToRestore, lastReadText, readAttachment, RESTORE_FILE_TOKENS, tooLargeNote, withinBudget } from '../history/compactFiles.js';
import { estimateTokens } from '../tools/read/tokenCap.js';

export interface RestoreOptions {
  /** The run's tools: the one named Read reads the files (none: nothing is attached). */
  tools: readonly Tool[];
  /** The run's working directory (a relative path is read from it). */
  cwd: string;
  /** The run's deny rules with a specifier (`ToolContext.denyRules`). */
  denyRules?: readonly DenyRule[];
  /** Cuts the run's secrets out of what is attached (as the tool runner does out of tool results). */
  redact?: (text: string) => string;
  /** The tokens all the attachments may take (default Claude Code's 50,000; compaction gives history/compactFiles.ts restoreBudget). */
  budget?: number;
}

/** The attachments' texts for a compaction (the files, then a note for each too large to attach) that summarized `summarized` and keeps `tail`, within Claude Code's limits. */
export async function restoredFiles(summarized: readonly MessageParam[], tail: readonly MessageParam[], options: RestoreOptions, signal: AbortSignal): Promise<string[]> {
  const read = options.tools.find((tool) => tool.name === 'Read');
  if (!read) return [];
  const key = (path: string) => absolutePath(path, options.cwd);
  const texts: string[] = [];
  const notes: string[] = [];
  for (const path of filesToRestore(summarized, tail, key)) {
    if (await denied(read, key(path), options)) continue;
    const output = await read.run({ file_path: key(path) }, { signal, cwd: options.cwd, ...(options.denyRules ? { denyRules: options.denyRules } : {}) });
    if (output.isError || output.blocks !== undefined) continue;
    const data = output.data as { type?: string } | undefined;
    // Read's answer for a file unchanged since the conversation read it whole: that read's content is the file's.
    const text = data?.type === 'file_unchanged' ? lastReadText(summarized, path, key) : output.content;
    if (text === undefined) continue;
    if (estimateTokens(text, extensionOf(path)) > RESTORE_FILE_TOKENS) notes.push(tooLargeNote(key(path)));
    else texts.push(readAttachment(key(path), options.redact ? options.redact(text) : text));
  }
  return [...withinBudget(texts, options.budget), ...notes];
}

/** A path's extension, without the dot ('' for none). */
function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
}

/** Whether a deny rule of the run's for Read covers `path`. */
async function denied(read: Tool, path: string, options: RestoreOptions): Promise<boolean> {
  for (const rule of options.denyRules ?? []) {
    if (rule.tool !== read.name && rule.tool !== read.publicName) continue;
    try {
      if (await read.permission?.matches(rule.specifier, { file_path: path }, 'deny', [options.cwd])) return true;
    } catch {
      return true;
    }
  }
  return false;
}
