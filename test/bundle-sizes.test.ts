/**
 * The browser bundle sizes docs/client.md states: an app that imports the machines it uses by name
 * pays a small fraction of `decode` / `encode`, which reach every decoder and encoder (measured by
 * bundling with rolldown, the bundler Vite uses; sizes, not times).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundleSizes } from '../scripts/bundle-sizes.ts';

test('the named machines bundle to under a fifth of decode + encode', async () => {
  const [all, named] = await bundleSizes({
    all: "import { decode, encode } from '@switchboard/core'; console.log(decode, encode);",
    named:
      "import { createAnthropicDecoder, createAiSdkEncoder } from '@switchboard/core'; console.log(createAnthropicDecoder, createAiSdkEncoder);",
  });
  assert.ok(all && named);
  assert.ok(named.gzipBytes * 5 < all.gzipBytes, `named ${named.gzipBytes} B gzip vs decode + encode ${all.gzipBytes} B`);
});
