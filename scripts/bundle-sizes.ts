/**
 * `node scripts/bundle-sizes.ts`: what an app's browser bundle pays for each way of importing core and
 * the client. Each row is a one-line entry bundled for the browser by rolldown (the bundler Vite
 * uses), minified; sizes in bytes, raw and gzip. docs/client.md ("Bundle size") holds today's table;
 * test/bundle-sizes.test.ts keeps the named machines a small fraction of `decode` / `encode`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'rolldown';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The entries measured: what an app imports. */
export const ENTRIES: Record<string, string> = {
  'decode + encode (every decoder and encoder, by name)':
    "import { decode, encode } from '@switchboard/core'; console.log(decode, encode);",
  'createDecoder + createEncoder (the registries)':
    "import { createDecoder, createEncoder } from '@switchboard/core'; console.log(createDecoder, createEncoder);",
  'createAnthropicDecoder + createAiSdkEncoder (the named machines)':
    "import { createAnthropicDecoder, createAiSdkEncoder } from '@switchboard/core'; console.log(createAnthropicDecoder, createAiSdkEncoder);",
  createMessageFold: "import { createMessageFold } from '@switchboard/core'; console.log(createMessageFold);",
  "@switchboard/client readStream (one protocol's reader)": "import { readStream } from '@switchboard/client'; console.log(readStream);",
};

export interface BundleSize {
  entry: string;
  bytes: number;
  gzipBytes: number;
}

/** Bundles each entry (minified, for the browser) and measures it. Needs the packages built (`npm run build`). */
export async function bundleSizes(entries: Record<string, string> = ENTRIES): Promise<BundleSize[]> {
  // Entries inside the repository, so that `@switchboard/*` resolves to the workspace packages.
  const dir = mkdtempSync(join(ROOT, 'node_modules/.bundle-sizes-'));
  try {
    const sizes: BundleSize[] = [];
    for (const [entry, source] of Object.entries(entries)) {
      const input = join(dir, `${sizes.length}.mjs`);
      writeFileSync(input, `${source}\n`);
      const out = await build({ input, platform: 'browser', write: false, logLevel: 'silent', output: { minify: true, format: 'esm' } });
      const code = out.output.map((o) => ('code' in o ? o.code : '')).join('');
      sizes.push({ entry, bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code).length });
    }
    return sizes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  console.log('| import | minified | gzip |\n|---|---:|---:|');
  for (const s of await bundleSizes()) console.log(`| ${s.entry} | ${kB(s.bytes)} | ${kB(s.gzipBytes)} |`);
}
