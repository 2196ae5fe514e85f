/** esbuild bundles imported CSS into main.css beside main.js. */
declare module '*.css';
