/**
 * An MCP result's content as the tool_result carries it (src/tools/mcp/content.ts, tools.ts outputOf): images and
 * PDFs as the API's blocks, in order with the text; what the API would refuse never sent (a block whose data is not
 * base64 of its type, a type the API does not take, over 5 MB), named in a line instead, so the history never holds a
 * result that makes every later request fail.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolResultText } from '../../../src/core/messages.js';
import { toToolResult } from '../../../src/tools/executor.js';
import { resultBlock } from '../../../src/tools/mcp/content.js';
import { outputOf } from '../../../src/tools/mcp/tools.js';

const b64 = (bytes: number[] | Buffer) => Buffer.from(bytes).toString('base64');
const PNG = b64(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]));
const PDF = b64(Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\n'));
const HEADS: Record<string, number[]> = {
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  'image/jpeg': [0xff, 0xd8, 0xff],
  'image/gif': [...Buffer.from('GIF89a')],
  'image/webp': [...Buffer.from('RIFF'), 1, 2, 3, 4, ...Buffer.from('WEBP')],
  'application/pdf': [...Buffer.from('%PDF-')],
};

describe('MCP content in a tool_result', () => {
  it('carries text, an image and a PDF resource as the API takes them, in order; the text names what is not text', () => {
    const output = outputOf({
      content: [
        { type: 'text', text: 'before' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: PDF } },
        { type: 'resource', resource: { uri: 'file:///b.txt', mimeType: 'text/plain', text: 'inside' } },
        { type: 'audio', data: b64([1, 2, 3]), mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
    });
    expect(output.blocks).toEqual([
      { type: 'text', text: 'before' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
      { type: 'text', text: 'inside' },
      { type: 'text', text: '[audio audio/wav, 3 bytes, not shown]' },
      { type: 'text', text: '[resource file:///c (c)]' },
    ]);
    expect(output.content).toBe(`before\n[image image/png, 48 bytes]\n[document application/pdf, ${Buffer.from(PDF, 'base64').length} bytes]\ninside\n[audio audio/wav, 3 bytes, not shown]\n[resource file:///c (c)]`);
    expect(toToolResult('t1', output)).toEqual({ type: 'tool_result', tool_use_id: 't1', content: output.blocks });
    expect(toolResultText(toToolResult('t1', output).content)).toBe(output.content);
  });

  it('keeps a text-only result a string, as before', () => {
    const output = outputOf({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] });
    expect(output).toEqual({ isError: false, content: 'a\nb' });
    expect(toToolResult('t1', output)).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'a\nb' });
  });

  it('never sends an image or PDF whose data is not base64 of its type: a property over random data and types', () => {
    const types = fc.constantFrom(...Object.keys(HEADS), 'image/svg+xml', 'image/bmp', 'application/zip');
    const data = fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 64 }).map((bytes) => b64([...bytes])),
      fc.tuple(fc.constantFrom(...Object.values(HEADS)), fc.uint8Array({ maxLength: 40 })).map(([head, rest]) => b64([...head, ...rest])),
      fc.string({ maxLength: 40 }),
      fc.tuple(fc.constantFrom(...Object.values(HEADS)), fc.uint8Array({ maxLength: 40 })).map(([head, rest]) => b64([...head, ...rest]).replace(/=+$/, '')),
    );
    fc.assert(
      fc.property(types, data, fc.boolean(), (mimeType, value, asResource) => {
        const block = resultBlock(asResource ? { type: 'resource', resource: { uri: 'x', mimeType, blob: value } } : { type: 'image', data: value, mimeType });
        const bytes = value.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
        const head = HEADS[mimeType];
        const starts = (at: number, expected: number[]) => bytes !== undefined && bytes.subarray(at, at + expected.length).equals(Buffer.from(expected));
        const ofItsType = head !== undefined && (mimeType === 'image/webp' ? starts(0, head.slice(0, 4)) && starts(8, head.slice(8)) : starts(0, head));
        const valid = ofItsType && (asResource || mimeType.startsWith('image/'));
        const sent = block?.type === 'image' || block?.type === 'document';
        expect(sent, `${mimeType} ${asResource ? 'resource' : 'image'}: ${value.slice(0, 30)}`).toBe(valid);
        if (sent) expect(block.source).toEqual({ type: 'base64', media_type: mimeType, data: value });
        else expect(block).toMatchObject({ type: 'text', text: expect.stringMatching(/not shown/) });
      }),
      { numRuns: 500 },
    );
  });

  it('names an image over the API’s 5 MB instead of sending it', () => {
    const big = b64(Buffer.concat([Buffer.from(HEADS['image/png']!), Buffer.alloc(4 * 1024 * 1024)]));
    expect(resultBlock({ type: 'image', data: big, mimeType: 'image/png' })).toEqual({ type: 'text', text: expect.stringMatching(/^\[image image\/png, \d+ bytes, not shown: over the API’s 5 MB\]$/) });
  });
});
