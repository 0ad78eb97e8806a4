/**
 * Vite build of the Switchboard web UI. It is written into the server package (`packages/server/web/`),
 * which serves it and ships it in its tarball (packages/server/src/server/static.ts). `npm run build`
 * and `npm start` build it when out of date (scripts/ensure-built.ts).
 *
 * Every text asset is also written precompressed (`.br`, `.gz` beside it), so the server answers a
 * browser that accepts Brotli or gzip with the smaller file and compresses nothing per request.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** Smaller files gain nothing from compression. */
const MIN_BYTES = 1024;
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|map|txt)$/;

function precompress(): Plugin {
  return {
    name: 'switchboard-precompress',
    apply: 'build',
    enforce: 'post',
    // After everything is written: the files on disk are the final ones (later plugins still rewrite chunks in generateBundle).
    async writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      await Promise.all(
        Object.keys(bundle)
          .filter((fileName) => COMPRESSIBLE.test(fileName) && !fileName.endsWith('.map'))
          .map(async (fileName) => {
            const path = join(dir, fileName);
            const bytes = await readFile(path);
            if (bytes.byteLength < MIN_BYTES) return;
            const br = brotliCompressSync(bytes, {
              params: { [constants.BROTLI_PARAM_QUALITY]: 10, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
            });
            await Promise.all([writeFile(`${path}.br`, br), writeFile(`${path}.gz`, gzipSync(bytes, { level: 9 }))]);
          }),
      );
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
  build: {
    outDir: '../../packages/server/web',
    emptyOutDir: true,
    // Served same-origin by the Switchboard server: no CDN, nothing fetched at run time.
    assetsInlineLimit: 0,
    // Maps are written for debugging in the repository but not referenced from the bundles: the
    // server package ships the bundles without them (they are most of the build's size).
    sourcemap: 'hidden',
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npm run dev -w @switchboard/web` next to `npm start` on :3000.
    proxy: { '/api': 'http://127.0.0.1:3000', '/healthz': 'http://127.0.0.1:3000' },
  },
});
