/**
 * Fallback for the whole-process benchmark when the `switchboard` CLI is not there: the same job
 * (`convert --from anthropic --to ai-sdk <file>`) through `createConverter`, file in 64 KiB chunks,
 * SSE text to stdout.
 *
 * Usage: node bench/ours-convert.ts <file>
 */

import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { createConverter } from '@switchboard/core';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/ours-convert.ts <file>\n');
  process.exit(2);
}

const converter = createConverter({ from: 'anthropic', to: 'ai-sdk' });
const write = async (out: string[]): Promise<void> => {
  if (out.length === 0) return;
  if (!process.stdout.write(out.join(''))) await once(process.stdout, 'drain');
};
for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) await write(converter.push(chunk as Uint8Array));
await write(converter.end());
