/**
 * `--json-schema SCHEMA`'s value: a JSON Schema object, checked with Ajv when it is given. A value of the option table
 * (./options.ts) that the structured output of a run (../setup/structuredOutput.ts) then uses.
 */
import { createRequire } from 'node:module';
import { UsageError } from './argValues.js';

export type JsonSchema = Record<string, unknown>;

interface AjvError {
  instancePath?: string;
  message?: string;
}
export interface Ajv {
  validateSchema(schema: unknown): boolean;
  errorsText(errors?: unknown): string;
  errors?: unknown;
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: AjvError[] | null };
}

/** Ajv, loaded when a schema is given (no other run pays for it). */
export function newAjv(): Ajv {
  const { Ajv } = createRequire(import.meta.url)('ajv') as { Ajv: new (options: object) => Ajv };
  return new Ajv({ allErrors: true });
}

/** `--json-schema SCHEMA` (or initialize's `jsonSchema`): a JSON Schema object, refused with one line if it is not one. */
export function jsonSchema(text: string | unknown, flag = '--json-schema'): JsonSchema {
  let schema: unknown = text;
  if (typeof text === 'string') {
    try {
      schema = JSON.parse(text);
    } catch {
      throw new UsageError(`${flag} takes a JSON Schema as JSON text: ${JSON.stringify(text.slice(0, 40))} is not JSON`);
    }
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new UsageError(`${flag} takes a JSON Schema object`);
  const ajv = newAjv();
  if (!ajv.validateSchema(schema)) throw new UsageError(`${flag} is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  return schema as JsonSchema;
}
