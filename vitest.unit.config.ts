import { defineConfig } from 'vitest/config';
import config from './vitest.config.js';

/** The unit tier alone, as `npm run test:unit` (`vitest run --project unit`) runs it: for `--config vitest.unit.config.ts`. */
export default defineConfig({ ...config, test: { ...config.test, projects: config.test?.projects?.slice(0, 1) } });
