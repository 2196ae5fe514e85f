/** The mistakes `agentloop --demo --mistake NAME` can make (catalog.ts has each one's parts). No imports: the CLI's parser checks names with it. */
export const MISTAKE_NAMES = ['forget-tool-result', 'forget-assistant', 'unbound-result', 'drop-message', 'stop-reason-only'] as const;

export type MistakeName = (typeof MISTAKE_NAMES)[number];

export function isMistakeName(name: string): name is MistakeName {
  return (MISTAKE_NAMES as readonly string[]).includes(name);
}
