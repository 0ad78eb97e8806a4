/** The store contract against the in-memory backend (`memory:`). */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openStore } from '../src/open.ts';
import { contract } from './contract.ts';
import { memorySetup } from './support.ts';

contract('memory', memorySetup);

test('openStore("memory:") opens an empty in-memory store', async () => {
  const store = await openStore('memory:');
  assert.equal(store.kind, 'memory');
  assert.deepEqual(await store.listChats(), []);
  await store.close();
});
