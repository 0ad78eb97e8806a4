import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpAgent } from '@ag-ui/client';
import { resolveConfig } from '../packages/server/src/config/load.ts';
import { startServer } from '../packages/server/src/server/start.ts';
test('probe', async () => {
  const config = resolveConfig({ builtins: { demo: { delayMs: 0 } } }, { env: {} });
  const s = await startServer({ port: 0, config, runOptions: { logger: { log() {} } }, onError: () => {} });
  const agent = new HttpAgent({ url: `${s.url}/api/agui`, threadId: 'probe-agui' });
  agent.addMessage({ id: 'u1', role: 'user', content: 'hi' });
  await agent.runAgent({ runId: 'r1', forwardedProps: { agent: 'demo' } });
  const hist = await (await fetch(`${s.url}/api/chats/probe-agui/messages?protocol=ag-ui`)).json();
  console.log(JSON.stringify(agent.messages, null, 1));
  console.log(JSON.stringify(hist.messages, null, 1));
  try { assert.deepEqual(JSON.parse(JSON.stringify(agent.messages)), hist.messages); } catch (e) { console.log(String(e)); }
  await s.close();
});
