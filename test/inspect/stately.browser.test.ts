/**
 * `--inspect` offline, in Chromium: the relay's page cannot load the Stately page (here an address
 * that refuses connections, as stately.ai does to a machine without the internet). It says so, in
 * place of the blank frame, names where to step through the run offline, and reports it to the
 * relay (which tells the terminal).
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStatelyInspector, type StatelyInspector } from '../../src/inspect/stately.js';
import { waitFor } from '../support/sessions.js';

let browser: Browser;
let inspector: StatelyInspector | undefined;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
});
afterAll(async () => {
  await browser?.close();
  await inspector?.close();
});

describe('the Stately inspector relay, offline', () => {
  it('says on its page that the Stately page could not load, gives the local viewer, and reports it', async () => {
    const reasons: string[] = [];
    inspector = await startStatelyInspector({
      inspectorUrl: 'http://127.0.0.1:9/inspect',
      offline: { command: 'node /opt/agentloop/dist/cli/main.js view 0b5e' },
      onUnavailable: (reason) => reasons.push(reason),
    });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(inspector.url);
    const box = page.getByTestId('offline');
    await box.waitFor({ state: 'visible', timeout: 20_000 });
    expect(await box.textContent()).toMatch(
      /^The Stately inspector could not load from http:\/\/127\.0\.0\.1:9\/inspect \(it could not be reached: .+\)\. It needs the internet\.The local step-through viewer shows the same run offline: node \/opt\/agentloop\/dist\/cli\/main\.js view 0b5e$/,
    );
    expect(await page.locator('#inspector').isVisible()).toBe(false);
    // Readable on a phone: laid out at the phone's width (a viewport meta), text of 14 px or more, no sideways scroll.
    expect(await page.locator('meta[name="viewport"]').getAttribute('content')).toBe('width=device-width, initial-scale=1');
    const sizes = await page.evaluate(() => [...document.querySelectorAll('p, #offline')].map((e) => parseFloat(getComputedStyle(e).fontSize)));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(14);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
    await waitFor('the report at the relay', () => reasons.length === 1);
    expect(reasons[0]).toMatch(/^it could not be reached: /);
  });
});
