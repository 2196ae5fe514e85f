/**
 * Checking a file tool's input against its declared fields, with Claude Code's wording for a bad one. The schemas
 * the model sees are Claude Code's own (each tool's schema.ts); this check is what `run` relies on.
 */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean';

export interface FieldSpec {
  kind: FieldKind;
  required?: boolean;
  /** integer/number: the smallest value allowed; `exclusive` makes it a strict bound. */
  min?: number;
  exclusive?: boolean;
  /** string: the values allowed. */
  oneOf?: readonly string[];
}

/** The input as a record of its fields, or the one-line problem (Claude Code's InputValidationError text). */
export function checkFields<T>(tool: string, input: unknown, fields: Record<string, FieldSpec>): { value: T } | { problem: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { problem: problem(tool, 'The input must be an object') };
  const record = input as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!(name in fields)) return { problem: problem(tool, `An unexpected parameter \`${name}\` was provided`) };
  }
  for (const [name, spec] of Object.entries(fields)) {
    const value = record[name];
    if (value === undefined) {
      if (spec.required === true) return { problem: problem(tool, `The required parameter \`${name}\` is missing`) };
      continue;
    }
    const bad = fieldProblem(name, value, spec);
    if (bad !== null) return { problem: problem(tool, bad) };
  }
  return { value: record as T };
}

function fieldProblem(name: string, value: unknown, spec: FieldSpec): string | null {
  const type = spec.kind === 'integer' ? 'number' : spec.kind;
  if (typeof value !== type || (typeof value === 'number' && !Number.isFinite(value))) {
    return `The parameter \`${name}\` type is expected as \`${spec.kind}\` but provided as \`${Array.isArray(value) ? 'array' : typeof value}\``;
  }
  if (spec.kind === 'integer' && !Number.isInteger(value)) return `The parameter \`${name}\` must be an integer`;
  if (typeof value === 'number' && spec.min !== undefined && (spec.exclusive === true ? value <= spec.min : value < spec.min)) {
    return `The parameter \`${name}\` must be ${spec.exclusive === true ? 'greater than' : 'at least'} ${spec.min}`;
  }
  if (typeof value === 'string' && spec.oneOf && !spec.oneOf.includes(value)) {
    return `The parameter \`${name}\` must be one of ${spec.oneOf.map((v) => `"${v}"`).join(', ')}`;
  }
  return null;
}

function problem(tool: string, text: string): string {
  return `InputValidationError: ${tool} failed due to the following issue:\n${text}`;
}
