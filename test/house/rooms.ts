/**
 * The rooms of src/, low to high: a file imports only from its own folder or from a lower layer. Folders in one
 * layer are side by side: neither imports the other. test/house/layers.test.ts holds the code to it, and
 * test/house/docs.test.ts holds the README's drawing to it.
 */
export const LAYERS: string[][] = [
  ['core'],
  ['history', 'settings'],
  ['machine', 'anthropic', 'scripted', 'tools'],
  ['permissions', 'transcript', 'diagram', 'loopback', 'otel'],
  ['run'],
  ['view', 'inspect', 'mistakes'],
  ['durable'],
  ['cli'],
  ['index.ts'],
];
