/**
 * STAND-IN until helper `contract` lands these in core/tool.ts (CONTRACT.md): the fields of the tool contract the file
 * tools fill. Removed once core/tool.ts exports them.
 */
import type { Tool, ToolOutput } from '../../core/tool.js';

export interface ToolPermission {
  matches(specifier: string, input: unknown, effect: 'allow' | 'deny', dirs: readonly string[]): boolean | Promise<boolean>;
  checkSpecifier?(specifier: string): void;
  isEditWithin?(input: unknown, dirs: readonly string[]): boolean | Promise<boolean>;
  suggestRule?(input: unknown): string;
}

export interface ToolDisplay {
  call(input: unknown): string;
}

export type FileToolOutput = ToolOutput & { data?: unknown };

export type FileTool = Omit<Tool, 'run'> & {
  publicName?: string;
  isReadOnly?(input: unknown): boolean | Promise<boolean>;
  permission?: ToolPermission;
  display?: ToolDisplay;
  run: Tool['run'];
};
