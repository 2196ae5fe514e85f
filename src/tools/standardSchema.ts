/**
 * A tool's input declared with any Standard Schema library (https://standardschema.dev: zod 4, ArkType, Valibot,
 * ...). The JSON Schema sent to the model comes from the library's own converter, through Standard JSON Schema
 * (`~standard.jsonSchema.input`, native in zod 4.2+ and ArkType 2.1.28+, and Valibot's `toStandardJsonSchema` from
 * `@valibot/to-json-schema`); the model's input is checked with the library's own `~standard.validate`. No converter
 * of our own and no third-party one (such as `@standard-community/standard-json`, which imports each library's
 * converter by name): the interface every maintained library now ships is the one source of the JSON Schema.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { ToolInputSchema } from '../core/tool.js';

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof props === 'object' && props !== null && typeof props.validate === 'function';
}

/** The JSON Schema of the input, as the schema's library writes it; a clear error when it cannot, never its internals. */
export function standardJsonSchema(tool: string, schema: StandardSchemaV1): ToolInputSchema {
  const props = schema['~standard'] as StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;
  if (typeof props.jsonSchema?.input !== 'function') {
    throw new TypeError(
      `defineTool(${tool}): the ${props.vendor} schema gives no JSON Schema to send to the model (Standard JSON Schema): ` +
        'use zod 4.2+, ArkType 2.1.28+, Valibot through toStandardJsonSchema() of @valibot/to-json-schema, or s',
    );
  }
  const { $schema: _dialect, ...json } = props.jsonSchema.input({ target: 'draft-2020-12' });
  if (json.type !== 'object') throw new TypeError(`defineTool(${tool}): a tool's input is an object, and this ${props.vendor} schema is not`);
  return json as ToolInputSchema;
}

export type Checked = { value: unknown } | { problem: string };

/** The value the schema makes of `input` (defaults, transforms), or what is wrong with it, naming the field. */
export async function checkStandard(schema: StandardSchemaV1, input: unknown): Promise<Checked> {
  const result = await schema['~standard'].validate(input);
  return result.issues ? { problem: issuesText(result.issues) } : { value: result.value };
}

/** Whether `input` is valid without waiting: a schema that validates asynchronously says nothing here (undefined). */
export function validNow(schema: StandardSchemaV1, input: unknown): boolean | undefined {
  const result = schema['~standard'].validate(input);
  return result instanceof Promise ? undefined : result.issues === undefined;
}

function issuesText(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map(({ message, path }) => {
      const at = (path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');
      return at === '' || message.startsWith(at) ? message : `"${at}": ${message}`;
    })
    .join('; ');
}
