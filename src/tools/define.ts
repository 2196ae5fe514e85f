/**
 * `defineTool`: a tool in a few lines, its input declared once (tools/schema.ts). The input the
 * model sends is checked against the schema before `run` sees it: a bad input becomes an
 * `is_error` result naming the field, and `run` gets the typed value.
 *
 * @example
 * const readFile = defineTool({
 *   name: 'read_file',
 *   description: 'Read a UTF-8 text file.',
 *   input: s.object({ path: s.string({ description: 'Path relative to the working directory' }) }),
 *   isConcurrencySafe: () => true,
 *   run: async ({ path }, { cwd }) => ({ content: await readFile(join(cwd, path), 'utf8'), isError: false }),
 * });
 */
import type { Tool, ToolContext, ToolInputSchema, ToolOutput } from '../core/tool.js';
import { inputProblem, type Infer, type Schema } from './schema.js';

export interface ToolDeclaration<S extends Schema<object>> {
  name: string;
  description: string;
  input: S;
  /** As `Tool.isConcurrencySafe`, on a valid input (an invalid one is never safe). */
  isConcurrencySafe?(input: Infer<S>): boolean;
  /** Runs on a valid input only. May throw: the executor turns a throw into an `is_error` result. */
  run(input: Infer<S>, context: ToolContext): Promise<ToolOutput>;
}

export function defineTool<S extends Schema<object>>(declaration: ToolDeclaration<S>): Tool {
  const { name, description, input: schema } = declaration;
  const problem = (input: unknown) => inputProblem(schema, input);
  return {
    name,
    description,
    inputSchema: schema as ToolInputSchema,
    isConcurrencySafe: (input) => problem(input) === undefined && (declaration.isConcurrencySafe?.(input as Infer<S>) ?? false),
    run: async (input, context) => {
      const bad = problem(input);
      if (bad !== undefined) return { isError: true, content: `Invalid input for ${name}: ${bad}.` };
      return declaration.run(input as Infer<S>, context);
    },
  };
}
