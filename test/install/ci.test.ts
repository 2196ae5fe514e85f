import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('.ci/run', () => {
  it('runs each of the README’s first commands, as written, in an empty environment of a fresh clone', () => {
    const ci = read('.ci/run');
    const readme = read('README.md');
    const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['npm ci && node dist/cli/main.js --demo', 'npm ci && npm test']);
    for (const command of commands) expect(ci).toContain(`clean '${command}'`);
    expect(ci).toMatch(/clean\(\) \{ env -i PATH="\$PATH" HOME="\$home" bash -c "\$1"; \}/);
    expect(ci).toContain('git clone');
  });

  it('sets nothing a reader of the README would not have', () => {
    const ci = read('.ci/run');
    expect(ci).not.toMatch(/^\s*export\s/m);
    expect(ci).not.toMatch(/PUPPETEER|PLAYWRIGHT_|npm_config_/i);
  });
});

describe('package.json', () => {
  it('has no dependency that downloads a browser on install', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: object; devDependencies: object };
    const names = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)];
    expect(names).not.toContain('puppeteer');
    expect(names).not.toContain('@mermaid-js/mermaid-cli');
    expect(names).not.toContain('playwright');
    const lock = read('package-lock.json');
    expect(lock).not.toContain('node_modules/puppeteer"');
  });
});
