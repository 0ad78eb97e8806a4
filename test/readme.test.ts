import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('..', import.meta.url).pathname;

test('the README library example is examples/library.ts, and it runs', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const block = readme.match(/## Library\n\n```ts\n(.*?)```/s)?.[1];
  assert.equal(block, readFileSync(`${root}examples/library.ts`, 'utf8'));
  const out = execFileSync(process.execPath, [`${root}examples/library.ts`], { encoding: 'utf8' });
  assert.match(out, /tool call: get_weather/);
  assert.match(out, /I'll check the current weather for you\./);
  assert.match(out, / v1 24 SSE events/);
});

test('README names the set-up and test commands, and .ci/run runs exactly those tests', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  for (const cmd of ['npm install', 'npm start', 'npm test', 'npm run test:consumer']) assert.ok(readme.includes(cmd), cmd);
  const ci = readFileSync(`${root}.ci/run`, 'utf8');
  assert.match(ci, /^npm ci$/m);
  assert.match(ci, /^npm test$/m);
  assert.match(ci, /^npm run test:consumer$/m);
});

test('the README assistant-message example is examples/message.ts, and it runs', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const block = readme.match(/### The assistant message\n\n```ts\n(.*?)```/s)?.[1];
  assert.equal(block, readFileSync(`${root}examples/message.ts`, 'utf8'));
  const out = execFileSync(process.execPath, [`${root}examples/message.ts`], { encoding: 'utf8' });
  assert.match(out, /assistant: I'll check the current weather for you\./);
  assert.match(out, /AG-UI MESSAGES_SNAPSHOT: reasoning, assistant/);
  assert.match(out, /timeline items: .*tool_execution/);
});
