// dist/ is made anew by each build: tsc only writes, so a file removed from src/ would otherwise stay in dist/ (and
// in the package `npm pack` makes of it).
import { rmSync } from 'node:fs';

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
