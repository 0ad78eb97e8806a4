/**
 * AG-UI as real peers expect it (pydantic-ai's AG-UI adapter tests): an empty thinking block makes no
 * reasoning message, and the text and tool calls of one provider response share one assistant message
 * (one `parentMessageId`, pydantic-ai regression #4098) — live (the official `HttpAgent` applying our
 * stream) and reloaded (the store's MESSAGES_SNAPSHOT), which are equal.
 *
 * The capture: vercel/ai's `anthropic-code-execution-20260120-issue-18193` (Apache-2.0, see
 * fixtures/recorded/SOURCES.md): thinking (a signature, no text), two server code executions with their
 * results, then text — one Anthropic response.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Message } from '@ag-ui/client';

import { type CanonicalEvent, createDecoder, createSseEncoder, framed, type Machine } from '../packages/core/src/index.ts';
import { project, toAgUiSnapshot } from '../packages/store/src/index.ts';
import { runAgUi } from './support/ag-ui-oracle.ts';

const CAPTURE = new URL('./fixtures/recorded/anthropic/anthropic-code-execution-20260120-issue-18193.chunks.txt', import.meta.url);

function drain<I, O>(m: Machine<I, O>, inputs: I[]): O[] {
  const out: O[] = [];
  for (const i of inputs) out.push(...m.push(i));
  out.push(...m.end());
  return out;
}

/** The capture's canonical events; `withoutSignature` drops the thinking block's only content. */
function canonical(withoutSignature: boolean): CanonicalEvent[] {
  let text = readFileSync(CAPTURE, 'utf8');
  if (withoutSignature)
    text = text
      .split('\n')
      .filter((l) => !l.includes('signature_delta'))
      .join('\n');
  return drain(framed(createDecoder('anthropic', { runId: 'run', now: () => 5 })), [text]);
}

/** What is compared: every field the official client keeps but the timestamps-free metadata. */
const shape = (list: readonly Message[]) => JSON.parse(JSON.stringify(list)) as Record<string, unknown>[];

describe('AG-UI peer fidelity (an Anthropic response with thinking, server tool calls and text)', () => {
  for (const withoutSignature of [false, true]) {
    const label = withoutSignature ? 'an empty thinking block' : 'a thinking block with only a signature';
    test(`${label}: one assistant message for the response, live equals reloaded`, async () => {
      const events = canonical(withoutSignature);
      const body = drain(createSseEncoder('ag-ui', {}), events).join('');
      const live = await runAgUi(body);
      assert.equal(live.error, undefined, String(live.error));
      assert.deepEqual(live.warnings, []);

      const assistants = live.messages.filter((m) => m.role === 'assistant');
      assert.equal(assistants.length, 1, JSON.stringify(live.messages, null, 1));
      const [answer] = assistants as Extract<Message, { role: 'assistant' }>[];
      assert.equal(answer.toolCalls?.length, 2);
      assert.ok(typeof answer.content === 'string' && answer.content.length > 0, 'the text is in the same message');
      const parents = new Set(
        live.events.flatMap((e) => (e.type === 'TOOL_CALL_START' ? [(e as { parentMessageId?: string }).parentMessageId] : [])),
      );
      assert.deepEqual([...parents], [answer.id]);

      const reasoning = live.messages.filter((m) => m.role === 'reasoning') as { content: string; encryptedValue?: string }[];
      if (withoutSignature) {
        assert.deepEqual(reasoning, [], 'no empty reasoning message');
        assert.ok(!live.events.some((e) => e.type.startsWith('REASONING')), 'no REASONING_* event');
      } else {
        // Hidden thinking is not empty: its signature must reach the model again.
        assert.equal(reasoning.length, 1);
        assert.ok(reasoning[0].encryptedValue);
      }

      const reloaded = toAgUiSnapshot([project(events)]);
      const comparable = (list: readonly Message[]) =>
        shape(list).map(({ metadata: _m, ...rest }) => ({
          ...rest,
          ...(Array.isArray(rest.toolCalls)
            ? { toolCalls: (rest.toolCalls as Record<string, unknown>[]).map(({ metadata: _x, ...call }) => call) }
            : {}),
        }));
      assert.deepEqual(comparable(reloaded.messages as unknown as Message[]), comparable(live.messages));
    });
  }
});
