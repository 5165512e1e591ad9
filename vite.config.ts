import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

/** Light theme: the page background and the header (card) colour, from styles.css. */
const BACKGROUND = '#fafafb';
const THEME = '#ffffff';

export default defineConfig({
  root: 'src/client',
  plugins: [
    react(),
    tailwindcss(),
    // Installable app (issue 13, decision 020): a manifest and a service worker that precaches the
    // shell and shows push notifications (issue 22, decision 036). main.tsx registers the worker
    // itself (no inline script: the CSP forbids it).
    VitePWA({
      // A new version waits for the person's 'Reload' (issue 31); lib/service-worker.ts registers it.
      registerType: 'prompt',
      injectRegister: false,
      // The glob below already precaches every icon; listing them again would add duplicates.
      includeManifestIcons: false,
      manifest: {
        id: '/',
        name: 'Tasklane',
        short_name: 'Tasklane',
        description: 'Tasks, files and AI agents, self-hosted.',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: BACKGROUND,
        theme_color: THEME,
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      // Our own worker (src/client/sw.ts, decision 036): Workbox's precaching as before, plus push
      // notifications and their actions. The plugin injects the precache list into it.
      strategies: 'injectManifest',
      srcDir: '.',
      filename: 'sw.ts',
      injectManifest: {
        // The shell: index.html, the hashed JS and CSS, the icons. Nothing else is cached.
        globPatterns: ['**/*.{js,css,html,svg,png}'],
        rollupFormat: 'iife',
      },
    }),
  ],
  build: {
    // npm run build (scripts/build.mjs) passes --outDir, a fresh folder of its own, and moves the
    // result into dist/client beside earlier builds' assets (decision 048): emptying it is harmless.
    outDir: '../../dist/client',
    emptyOutDir: true,
    sourcemap: false,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
