/** What the five file tools of one run share: the files the model has seen, the containment guard, the home. */
import type { FileGuard } from './guard.js';
import type { FileState } from './fileState.js';

export interface FileToolsShared {
  state: FileState;
  guard: FileGuard;
  /** The working directory the tools were made for (descriptions, suggested rules); runs use `ToolContext.cwd`. */
  cwd: string;
  home: string;
}

/** `input.file_path` (or `path`), when the input has one as a string: what displays and rules look at. */
export function pathField(input: unknown, field: 'file_path' | 'path'): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

/** A field of the input as text, for one line of display. */
export function textField(input: unknown, field: string): string {
  if (typeof input !== 'object' || input === null) return '';
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : '';
}
