/**
 * Debian's chromium through playwright-core, as every page test drives it: one launch with the flags that keep it
 * quiet and offline, and a page taken to the viewer on a session and waited for until it has loaded.
 */
import { rmSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startViewer, type Viewer, type ViewerOptions } from '../../src/view/server/server.js';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Debian's chromium, headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** A viewer on `options.home` and a chromium to look at it; `close` closes both and removes the home. */
export async function viewerInChromium(options: ViewerOptions & { home: string }): Promise<{ viewer: Viewer; browser: Browser; close(): Promise<void> }> {
  const viewer = await startViewer(options);
  const browser = await launchChromium();
  return {
    viewer,
    browser,
    close: async () => {
      await browser.close();
      await viewer.close();
      rmSync(options.home, { recursive: true, force: true });
    },
  };
}

export interface ViewerPage {
  /** The session to open (`?session=`); none keeps the URL's own. */
  session?: string;
  lang?: 'en' | 'zh';
  /** How long the page may take to load (ms). */
  timeout?: number;
}

/** Takes `page` to the viewer at `viewerUrl` (on `session`, in `lang`) and waits until its body says it has loaded. */
export async function showViewer(page: Page, viewerUrl: string, options: ViewerPage = {}): Promise<Page> {
  const url = new URL(viewerUrl);
  if (options.session) url.searchParams.set('session', options.session);
  if (options.lang) url.searchParams.set('lang', options.lang);
  await page.goto(url.toString());
  await page.waitForSelector('body[data-loaded="true"]', { timeout: options.timeout ?? 30_000 });
  return page;
}

/** The text of the first element with test id `id` ('' if none). */
export const testIdText = async (page: Page, id: string): Promise<string> => (await page.getByTestId(id).first().textContent()) ?? '';

/** Steps the viewer on (→) until `until` holds, at most `max` times; whether it held. */
export async function stepUntil(page: Page, until: () => Promise<boolean>, max = 40): Promise<boolean> {
  for (let i = 0; i < max; i++) {
    if (await until()) return true;
    await page.keyboard.press('ArrowRight');
  }
  return until();
}
