/**
 * Vite build of the portal's single-page app: root here, output in <repo>/dist/apps/portal/web,
 * hashed assets under assets/. No plugin: Vite's esbuild compiles TSX with the automatic runtime.
 * Nothing inline (the portal's CSP is script-src 'self', style-src 'self').
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
export const DEFAULT_OUT_DIR = fileURLToPath(new URL('../../../dist/apps/portal/web', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  appType: 'spa',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: DEFAULT_OUT_DIR,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // Inline assets would be data: URLs (not allowed by the CSP for everything): always files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    reportCompressedSize: true,
    rollupOptions: {
      // React Router and React Query mark their modules "use client" (for server components); meaningless in this bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.message.includes('use client')) return;
        warn(warning);
      },
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});
