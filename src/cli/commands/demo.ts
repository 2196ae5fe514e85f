export { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../../scripted/demo.js';

export type DemoLang = 'en' | 'zh';

/** The demo's language: `--lang`, else the terminal's ($LC_ALL, $LC_MESSAGES, $LANG: zh_CN.UTF-8 is Chinese), else English. */
export function demoLang(given: DemoLang | undefined, env: NodeJS.ProcessEnv): DemoLang {
  if (given) return given;
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return /^zh/i.test(locale) ? 'zh' : 'en';
}

const BANNER: Record<DemoLang, string> = {
  en: '[demo] The model is scripted (no API key, no network): it plays the two-turn example. The machine and the bash tool are real.',
  zh: '[demo] 模型是脚本（不需要 API key，不联网）：它演一遍两轮的例子。状态机和 bash 工具都是真的。',
};

export const DEMO_BANNER = BANNER.en;

export function demoBanner(lang: DemoLang): string {
  return BANNER[lang];
}

/** The demo's last words: the one command that steps the same run in the browser, as it runs from here. */
export function stepHint(lang: DemoLang, self: string): string {
  return lang === 'zh'
    ? `[demo] 在浏览器里一步一步看这个循环（每个请求、回复、工具、追加之前都停下）：\n  ${self} --demo --step`
    : `[demo] Step through this loop in the browser, stopping before each request, reply, tool and append:\n  ${self} --demo --step`;
}
