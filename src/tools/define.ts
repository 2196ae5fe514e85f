/**
 * `defineTool`: a tool in a few lines, its input declared once, with any Standard Schema library (zod 4, ArkType,
 * Valibot: tools/standardSchema.ts) or with agentloop's own `s` (tools/schema.ts, which loads nothing: the built-in
 * bash tool uses it, and every run would otherwise pay for importing a schema library). The JSON Schema sent to the
 * model is derived from it; the model's input is checked before `run` sees it: a bad input becomes an `is_error`
 * result naming the field, and `run` gets the valid value (as the schema's library makes it: defaults, transforms).
 *
 * @example
 * const readFile = defineTool({
 *   name: 'read_file',
 *   description: 'Read a UTF-8 text file.',
 *   input: z.object({ path: z.string().describe('Path relative to the working directory') }),
 *   isConcurrencySafe: () => true,
 *   run: async ({ path }, { cwd }) => ({ content: await readFile(join(cwd, path), 'utf8'), isError: false }),
 * });
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Tool, ToolContext, ToolDisplay, ToolInputSchema, ToolOutput, ToolPermission, ToolPrepare } from '../core/tool.js';
import { inputProblem, type Infer, type Schema } from './schema.js';
import { checkStandard, isStandardSchema, standardJsonSchema, validNow, type Checked } from './standardSchema.js';

/** A tool's input schema: any Standard Schema of an object, or an `s.object(...)` (a JSON Schema). */
export type ToolInput = StandardSchemaV1<unknown, object> | Schema<object>;

/** The value `run` gets for a schema. */
export type InputOf<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : Infer<S>;

export interface ToolDeclaration<S extends ToolInput> {
  /** The name the model sees. */
  name: string;
  /** As `Tool.publicName`: Claude Code's name of the tool, when it is one of Claude Code's (default: `name`). */
  publicName?: string;
  description: string;
  input: S;
  /** As `Tool.isConcurrencySafe`, on a valid input (an invalid one is never safe). */
  isConcurrencySafe?(input: InputOf<S>): boolean;
  /** As `Tool.isReadOnly`, on a valid input (an invalid one is never read-only). */
  isReadOnly?(input: InputOf<S>): boolean | Promise<boolean>;
  /** As `Tool.permission` (its functions get the raw input: check it). */
  permission?: ToolPermission;
  /** As `Tool.display` (`call` gets the raw input; when it throws, the input is shown as JSON). */
  display?: ToolDisplay;
  /** As `Tool.spanAttributes`. */
  spanAttributes?: Readonly<Record<string, string>>;
  /** Runs on a valid input only. May throw: the executor turns a throw into an `is_error` result. */
  run(input: InputOf<S>, context: ToolContext): Promise<ToolOutput>;
  /** As `Tool.prepare`. */
  prepare?(run?: ToolPrepare): void;
}

export function defineTool<S extends ToolInput>(declaration: ToolDeclaration<S>): Tool {
  const { name, description, input: schema, isReadOnly } = declaration;
  const { inputSchema, check, validNow: valid } = inputOf(name, schema);
  return {
    name,
    ...(declaration.publicName !== undefined ? { publicName: declaration.publicName } : {}),
    description,
    inputSchema,
    isConcurrencySafe: (input) => valid(input) === true && (declaration.isConcurrencySafe?.(input as InputOf<S>) ?? false),
    ...(isReadOnly ? { isReadOnly: (input: unknown) => readOnlyWhenValid(check, input, isReadOnly as (value: unknown) => boolean | Promise<boolean>) } : {}),
    ...(declaration.permission ? { permission: declaration.permission } : {}),
    ...(declaration.display ? { display: declaration.display } : {}),
    ...(declaration.spanAttributes ? { spanAttributes: declaration.spanAttributes } : {}),
    run: async (input, context) => {
      const checked = await check(input);
      if ('problem' in checked) return { isError: true, content: `Invalid input for ${name}: ${checked.problem}.` };
      return declaration.run(checked.value as InputOf<S>, context);
    },
    ...(declaration.prepare ? { prepare: declaration.prepare } : {}),
  };
}

/** Whether a call only reads: its input valid and the declaration's check true; false when either fails. */
async function readOnlyWhenValid(check: (input: unknown) => Promise<Checked>, input: unknown, isReadOnly: (value: unknown) => boolean | Promise<boolean>): Promise<boolean> {
  try {
    const checked = await check(input);
    return 'value' in checked && (await isReadOnly(checked.value)) === true;
  } catch {
    return false;
  }
}

/** The JSON Schema and the checks of a declared input, whichever way it was declared. */
function inputOf(name: string, schema: ToolInput) {
  if (isStandardSchema(schema)) {
    return {
      inputSchema: standardJsonSchema(name, schema),
      check: (input: unknown) => checkStandard(schema, input),
      validNow: (input: unknown) => validNow(schema, input),
    };
  }
  if (schema.type !== 'object') {
    throw new TypeError(`defineTool(${name}): input must be a Standard Schema (zod 4, ArkType, Valibot, ...) or an s.object(...)`);
  }
  const problem = (input: unknown) => inputProblem(schema, input);
  return {
    inputSchema: schema as ToolInputSchema,
    check: async (input: unknown): Promise<Checked> => {
      const bad = problem(input);
      return bad === undefined ? { value: input } : { problem: bad };
    },
    validNow: (input: unknown) => problem(input) === undefined,
  };
}
