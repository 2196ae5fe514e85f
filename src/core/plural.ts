/** A count with its noun, in the right number: `1 turn`, `2 turns`, `1 entry`, `3 entries`, `1 tool result`. */
export function plural(count: number, singular: string, pluralForm?: string): string {
  if (count === 1) return `${count} ${singular}`;
  return `${count} ${pluralForm ?? (/[^aeiou]y$/.test(singular) ? `${singular.slice(0, -1)}ies` : `${singular}s`)}`;
}
