/**
 * Vite build of the Switchboard web UI. `npm start` builds it on demand (scripts/ensure-built.ts);
 * the server serves `dist/` (packages/server/src/server/static.ts).
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Served same-origin by the Switchboard server: no CDN, nothing fetched at run time.
    assetsInlineLimit: 0,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npm run dev -w @switchboard/web` next to `npm start` on :3000.
    proxy: { '/api': 'http://127.0.0.1:3000', '/healthz': 'http://127.0.0.1:3000' },
  },
});
