/**
 * An MCP tool's image in the viewer, in real headless Chromium at 1440×900 and 390×844: the record is made by really
 * running the CLI (a process) with the real `@modelcontextprotocol/server-everything` from npm, whose get-tiny-image
 * tool returns text, a PNG and text. On every step of that session the page holds no base64 of the image as text
 * (not in the messages, not in the tool card, not in the request's JSON, folded parts included); where the result is
 * shown, its text blocks are text and its image is drawn (a data: URL the CSP lets load) with its media type and size
 * as the record has them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResults } from '../../support/agentServer.js';
import { runCli } from '../../support/cli.js';
import { everything } from '../../support/mcp.js';
import type { RequestBody } from '../../support/messagesServer.js';
import { openCliProject, type CliProject } from '../../support/project.js';
import { startViewer, type Viewer } from '../../../src/view/server/server.js';
import { launchChromium, showViewer } from '../../support/browser.js';

/** Where the last step's screenshot is kept (git-ignored, beside the demo's). */
const SHOTS = join(process.cwd(), 'test-results', 'viewer-steps');
const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

let project: CliProject;
let viewer: Viewer;
let browser: Browser;
let sessionId: string;
/** The image's base64 as the model was sent it (and the transcript keeps it). */
let data: string;

beforeAll(async () => {
  project = await openCliProject('view-mcp-image');
  const json = JSON.stringify({ mcpServers: { every: everything(`view-image-${process.pid}`) } });
  project.server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_img', name: 'mcp__every__get-tiny-image', input: {} }], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'A small MCP logo.' }], stop_reason: 'end_turn' });
  // A server's tools run in -p only when allowed, as with Claude Code's -p (docs/cli.md#permissions).
  const run = await runCli(['-p', '--mcp-config', json, '--output-format', 'json', 'show me the image', '--allowedTools', 'mcp__every'], { cwd: project.dir, env: project.env });
  expect(run.code, run.stderr).toBe(0);
  sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
  const [result] = lastToolResults(project.server.requests[1]?.body as RequestBody);
  const image = (Array.isArray(result?.content) ? result.content : []).find((b) => b.type === 'image');
  if (image?.type !== 'image' || image.source.type !== 'base64') throw new Error(`no image block in ${JSON.stringify(result)}`);
  data = image.source.data;
  viewer = await startViewer({ home: project.home });
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await project?.close();
});

/** What the page shows of the image at this step: where it is drawn, loaded, and the captions; and any base64 as text. */
const shown = (page: Page, chunk: string) =>
  page.evaluate((chunk) => {
    const drawn = (root: string) =>
      [...document.querySelectorAll<HTMLImageElement>(`${root} figure.media img`)].map((img) => ({ src: img.src, width: img.naturalWidth, complete: img.complete }));
    return {
      base64AsText: document.body.textContent?.includes(chunk) ?? true,
      inCard: drawn('[data-testid="tool-card"]:not([hidden])'),
      inMessages: drawn('[data-testid="messages"]'),
      cardText: document.querySelector('[data-testid="tool-card"]:not([hidden]) [data-testid="tool-content"]')?.textContent ?? null,
      captions: [...document.querySelectorAll('[data-testid="media-caption"]')].map((c) => c.textContent),
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      request: document.querySelector('[data-testid="request"]')?.textContent ?? '',
    };
  }, chunk);

describe.each(SIZES)('an MCP image result in the viewer at $width×$height', (size) => {
  it('draws the image with its media type and size, shows the text blocks as text, and never shows its base64 as text', async () => {
    const page = await (await browser.newContext({ viewport: size })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await showViewer(page, viewer.url, { session: sessionId });
    await page.keyboard.press('Home');
    const src = `data:image/png;base64,${data}`;
    const caption = `image image/png, ${Buffer.from(data, 'base64').length} bytes`;
    const width = Buffer.from(data, 'base64').readUInt32BE(16);
    let cardSteps = 0;
    let requestSteps = 0;
    for (let i = 0; ; i++) {
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('figure.media img')].every((img) => img.complete));
      const s = await shown(page, data.slice(40, 80));
      expect(s.base64AsText, `step ${i + 1}`).toBe(false);
      expect(s.overflow, `step ${i + 1}`).toBeLessThanOrEqual(0);
      // Drawn from the record's own bytes, loaded at the PNG's width (its IHDR's): the CSP let the data: URL in.
      for (const img of [...s.inCard, ...s.inMessages]) expect({ ...img, src: img.src === src }).toEqual({ src: true, width, complete: true });
      for (const c of s.captions) expect(c).toBe(caption);
      if (s.inCard.length) {
        if (cardSteps++ === 0) await page.screenshot({ path: join(SHOTS, `mcp-image-${size.width}x${size.height}.png`), fullPage: true });
        expect(s.cardText).toBe(`Here's the image you requested:${caption}The image above is the MCP logo.`);
      }
      if (s.request.includes('tool_result')) requestSteps += 1;
      if (s.request.includes('tool_result')) expect(s.request).toContain(`‹base64 of image/png, ${Buffer.from(data, 'base64').length} bytes: drawn in the messages pane›`);
      if (await page.getByTestId('next').isDisabled()) break;
      await page.getByTestId('next').click();
    }
    expect(cardSteps).toBeGreaterThan(0);
    expect(requestSteps).toBeGreaterThan(0);
    // The last step: the history's tool_result holds the image, drawn in the messages pane.
    expect((await shown(page, data.slice(40, 80))).inMessages).toHaveLength(1);
    expect(errors).toEqual([]);
  }, 120_000);
});
