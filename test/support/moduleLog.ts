import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes into `dir` a module hook that appends the URL of every module a process resolves to the file $MODULE_LOG
 * (it runs on the loader's thread, so it appends to a file); a process loads it with `--import dir/register.mjs`.
 */
export function writeModuleLogHook(dir: string): void {
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.MODULE_LOG, result.url + '\\n');
  return result;
}
`,
  );
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
}
