/**
 * agentloop's own schema builder: `s.object({ ... })` gives the JSON Schema sent to the model and, through
 * `Infer<typeof schema>`, the TypeScript type `run` receives; `inputProblem` checks a value against it, naming the
 * field (`defineTool` does, before `run`). Any Standard Schema library does the same for `defineTool`
 * (tools/standardSchema.ts); this one stays because it loads nothing: importing zod adds about 170 ms of CPU to a
 * process here, ArkType more, and the built-in bash tool is in every run. A tool input needs only this subset of
 * JSON Schema: object, string, number, integer, boolean, array, enum, required, minimum/exclusiveMinimum, minLength,
 * additionalProperties false.
 */

/** The subset of JSON Schema that tool inputs use (and that `inputProblem` understands). */
export interface JsonSchema {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: readonly unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  [keyword: string]: unknown;
}

/** A schema that carries the TypeScript type of the values it accepts. */
export interface Schema<T> extends JsonSchema {
  /** Type-level only: never set. */
  readonly __type?: T;
}

/** A property that may be left out. */
export interface Optional<T> {
  readonly optional: Schema<T>;
}

type Property = Schema<unknown> | Optional<unknown>;
type ValueOf<P> = P extends Optional<infer T> ? T : P extends Schema<infer T> ? T : never;
type RequiredKeys<P> = { [K in keyof P]: P[K] extends Optional<unknown> ? never : K }[keyof P];
type ObjectOf<P extends Record<string, Property>> = { [K in RequiredKeys<P>]: ValueOf<P[K]> } & {
  [K in Exclude<keyof P, RequiredKeys<P>>]?: ValueOf<P[K]>;
};

/** The TypeScript type a schema accepts. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Notes = Pick<JsonSchema, 'description'>;

export const s = {
  string: (notes: Notes & Pick<JsonSchema, 'minLength'> = {}): Schema<string> => ({ type: 'string', ...notes }),
  number: (notes: Notes & Pick<JsonSchema, 'minimum' | 'exclusiveMinimum'> = {}): Schema<number> => ({ type: 'number', ...notes }),
  integer: (notes: Notes & Pick<JsonSchema, 'minimum' | 'exclusiveMinimum'> = {}): Schema<number> => ({ type: 'integer', ...notes }),
  boolean: (notes: Notes = {}): Schema<boolean> => ({ type: 'boolean', ...notes }),
  array: <T>(items: Schema<T>, notes: Notes = {}): Schema<T[]> => ({ type: 'array', items, ...notes }),
  enum: <const T extends readonly (string | number)[]>(values: T, notes: Notes = {}): Schema<T[number]> => ({ enum: values, ...notes }),
  optional: <T>(schema: Schema<T>): Optional<T> => ({ optional: schema }),
  object<P extends Record<string, Property>>(properties: P, notes: Notes = {}): Schema<ObjectOf<P>> {
    const props: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, property] of Object.entries(properties)) {
      if (isOptional(property)) props[key] = property.optional;
      else {
        props[key] = property;
        required.push(key);
      }
    }
    return { type: 'object', properties: props, ...(required.length > 0 ? { required } : {}), ...notes };
  },
};

/**
 * What is wrong with `value` against `schema`, naming the field (e.g. `"timeout" must be a
 * number, got a string`), or `undefined` when it fits. Keywords outside the subset are ignored.
 */
export function inputProblem(schema: JsonSchema, value: unknown, path = ''): string | undefined {
  const name = path === '' ? 'the input' : `"${path}"`;
  if (schema.enum && !schema.enum.includes(value)) {
    return `${name} must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`;
  }
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${name} must be an object, got ${describe(value)}`;
      const record = value as Record<string, unknown>;
      for (const key of schema.required ?? []) {
        if (record[key] === undefined) return `"${join(path, key)}" is required${describeField(schema.properties?.[key])}`;
      }
      for (const [key, field] of Object.entries(record)) {
        const fieldSchema = schema.properties?.[key];
        if (fieldSchema === undefined) {
          if (schema.additionalProperties === false) return `"${join(path, key)}" is not a field of ${name}`;
          continue;
        }
        if (field === undefined) continue;
        const problem = inputProblem(fieldSchema, field, join(path, key));
        if (problem) return problem;
      }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return `${name} must be an array, got ${describe(value)}`;
      for (let i = 0; i < value.length; i++) {
        const problem = schema.items ? inputProblem(schema.items, value[i], `${path}[${i}]`) : undefined;
        if (problem) return problem;
      }
      return undefined;
    }
    case 'string':
      if (typeof value !== 'string') return `${name} must be a string, got ${describe(value)}`;
      if (schema.minLength !== undefined && value.length < schema.minLength) return `${name} must not be empty`;
      return undefined;
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${name} must be a number, got ${describe(value)}`;
      if (schema.type === 'integer' && !Number.isInteger(value)) return `${name} must be a whole number, got ${value}`;
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return `${name} must be more than ${schema.exclusiveMinimum}, got ${value}`;
      if (schema.minimum !== undefined && value < schema.minimum) return `${name} must be at least ${schema.minimum}, got ${value}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name} must be true or false, got ${describe(value)}`;
    default:
      return undefined;
  }
}

function isOptional(property: Property): property is Optional<unknown> {
  return 'optional' in property && typeof property.optional === 'object' && property.optional !== null;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describeField(schema: JsonSchema | undefined): string {
  return schema?.description ? ` (${schema.description.split(/[.,]/)[0]})` : '';
}
