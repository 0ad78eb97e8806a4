/** The store contract against Redis, and what is Redis's own: the owner index and its migration. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';

import { openRedisStore, type RedisStore } from '../src/redis.ts';
import { contract } from './contract.ts';
import { redisSetup, rid, ticking } from './support.ts';

contract('Redis', redisSetup);

/** Records the keys of every command the store sends (first key argument of each). */
function recordKeys(store: RedisStore): { keys: string[] } {
  const client = (store as unknown as { client: { sendCommand(args: string[]): Promise<unknown> } }).client;
  const send = client.sendCommand.bind(client);
  const seen = { keys: [] as string[] };
  client.sendCommand = (args: string[]) => {
    // EVALSHA / EVAL name their keys after the key count; the others take the key first.
    seen.keys.push(args[0].startsWith('EVAL') ? args[3] : args[1]);
    return send(args);
  };
  return seen;
}

/** Deletes every key under a prefix. */
async function dropPrefix(url: string, prefix: string): Promise<void> {
  const c = createClient({ url });
  c.on('error', () => {});
  await c.connect();
  const keys = (await c.sendCommand(['KEYS', `${prefix}*`])) as string[];
  if (keys.length > 0) await c.sendCommand(['DEL', ...keys]);
  await c.close();
}

describe('Redis owner index', async () => {
  const env = await redisSetup();
  if ('skip' in env) return; // the contract's "Redis is reachable" test reports it (and fails under CI=true)
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `sbtest:${rid('owners')}:`;
  let store: RedisStore;
  before(async () => {
    store = await openRedisStore({ url, prefix, now: ticking() });
  });
  after(async () => {
    await store?.close();
    await dropPrefix(url, prefix);
  });

  test("listChats({ owner }) reads the owner's index and the owner's chats, no other key", async () => {
    const owner = rid('owner');
    for (let i = 0; i < 60; i++) await store.createChat({ metadata: { owner: `${owner}-other-${i % 3}` } });
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await store.createChat({ metadata: { owner } })).id);
    await store.startRun({ chatId: mine[0], runId: rid('run') });
    const seen = recordKeys(store);
    const listed = await store.listChats({ owner });
    assert.deepEqual(listed.map((c) => c.id).sort(), [...mine].sort());
    assert.equal(listed[0].id, mine[0], 'the chat with the new run is the most recent');
    const index = `${store.prefix}owner:${owner}:chats`;
    assert.deepEqual(seen.keys.sort(), [index, ...mine.map((id) => `${store.prefix}chat:${id}`)].sort());
  });

  test('re-owning and deleting a chat move it between indexes in the same script', async () => {
    const owner = rid('owner');
    const chat = await store.createChat({ metadata: { owner } });
    await store.updateChat(chat.id, { metadata: { owner: `${owner}-2` } });
    assert.deepEqual(await store.listChats({ owner }), []);
    assert.deepEqual(
      (await store.listChats({ owner: `${owner}-2` })).map((c) => c.id),
      [chat.id],
    );
    await store.updateChat(chat.id, { metadata: { owner: 7 } });
    assert.deepEqual(await store.listChats({ owner: `${owner}-2` }), [], 'a non-string owner is no owner');
    await store.updateChat(chat.id, { metadata: { owner } });
    await store.deleteChat(chat.id);
    assert.deepEqual(await store.listChats({ owner }), []);
  });

  test('a schema 1 prefix gets its owner index built when opened', async () => {
    const old = `sbtest:${rid('mig')}:`;
    const c = createClient({ url });
    c.on('error', () => {});
    await c.connect();
    try {
      // What schema 1 wrote: chat hashes with their metadata, no owner field, no owner zset.
      await c.sendCommand(['SET', `${old}schema`, '1']);
      const rows: [string, string | undefined][] = [
        ['c1', JSON.stringify({ owner: 'ann' })],
        ['c2', JSON.stringify({ owner: 'bob' })],
        ['c3', JSON.stringify({ owner: 'ann', x: 1 })],
        ['c4', '{not json'],
        ['c5', undefined],
      ];
      for (const [i, [id, metadata]] of rows.entries()) {
        const at = String(1000 + i);
        await c.sendCommand(['HSET', `${old}chat:${id}`, 'id', id, 'createdAt', at, 'updatedAt', at]);
        if (metadata) await c.sendCommand(['HSET', `${old}chat:${id}`, 'metadata', metadata]);
        await c.sendCommand(['ZADD', `${old}chats`, at, id]);
      }
      const migrated = await openRedisStore({ url, prefix: old });
      try {
        assert.equal(await migrated.schemaVersion(), 2);
        assert.deepEqual(
          (await migrated.listChats({ owner: 'ann' })).map((x) => x.id),
          ['c3', 'c1'],
        );
        assert.deepEqual(
          (await migrated.listChats({ owner: 'bob' })).map((x) => x.id),
          ['c2'],
        );
      } finally {
        await migrated.close();
      }
    } finally {
      await c.close();
      await dropPrefix(url, old);
    }
  });
});
