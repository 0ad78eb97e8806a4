/**
 * buildThinkingTimeline / createTimelineBuilder (the thinking timeline):
 * - equals the store's timeline history (`toTimeline(project(events))`) on every Anthropic capture and
 *   on runs with `<think>` tags in their text, so a live chat and its reload show the same items;
 * - the streaming `<think>` splitter equals the store's `extractThinkTags` however the text is split;
 * - streamed and tag thinking deduplicated (the streamed one wins), also across a stored history and
 *   the live stream of the same message; blocks still streaming are ephemeral_message items;
 * - linear in the stream (string work counted).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';
import { extractThinkTags, project, toTimeline } from '@switchboard/store';
import fc from 'fast-check';
import { ThinkSplitter } from '../src/index.ts';
import { buildThinkingTimeline, createTimelineBuilder, type TimelineItem } from '../src/timeline.ts';
import { ANTHROPIC_CAPTURES, decodeCapture } from './helpers.ts';

const json = (v: unknown) => JSON.parse(JSON.stringify(v));

function stored(events: CanonicalEvent[], state?: 'pending' | 'persisted'): TimelineItem[] {
  return toTimeline([project(events, { chatId: 'c' }, state)]) as TimelineItem[];
}

function ev(seq: number, e: Record<string, unknown>, ts = 1_763_870_000_000 + seq * 100): CanonicalEvent {
  return { runId: 'r', seq, ts, ...e } as CanonicalEvent;
}

/** A run whose text carries <think> sections: one equal to its streamed thinking block, one not. */
function thinkRun(): CanonicalEvent[] {
  const text = [
    '<think>',
    'I should greet.',
    '</think>',
    'Hello',
    ' <THINKING >and be brief</thinking> there',
    '</think> stray',
    ' <thin',
    'k>tail',
  ];
  let seq = 0;
  const events: CanonicalEvent[] = [
    ev(seq++, { type: 'run-start', version: 2, messageId: 'm1' }),
    ev(seq++, { type: 'reasoning-start', blockId: 'r1', variant: 'thinking' }),
    ev(seq++, { type: 'reasoning-delta', blockId: 'r1', delta: 'I should   greet.' }),
    ev(seq++, { type: 'reasoning-end', blockId: 'r1' }),
    ev(seq++, { type: 'reasoning-start', blockId: 'p1', variant: 'processing' }),
    ev(seq++, { type: 'reasoning-delta', blockId: 'p1', delta: 'Looking things up' }),
    ev(seq++, { type: 'reasoning-end', blockId: 'p1' }),
    ev(seq++, { type: 'text-start', blockId: 't1' }),
  ];
  for (const d of text) events.push(ev(seq++, { type: 'text-delta', blockId: 't1', delta: d }));
  events.push(
    ev(seq++, { type: 'text-end', blockId: 't1' }),
    ev(seq++, { type: 'tool-input-start', toolCallId: 'c1', toolName: 'search' }),
    ev(seq++, { type: 'tool-input-delta', toolCallId: 'c1', delta: '{"q":"x"}' }),
    ev(seq++, { type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }),
    ev(seq++, { type: 'tool-error', toolCallId: 'c1', toolName: 'search', error: 'boom' }),
    ev(seq++, { type: 'error', message: 'minor', fatal: false }),
    ev(seq++, { type: 'run-finish', finishReason: 'stop' }),
  );
  return events;
}

describe('timeline equals the store history', () => {
  test('every Anthropic capture', () => {
    for (const name of ANTHROPIC_CAPTURES) {
      const events = decodeCapture(name);
      assert.deepEqual(json(buildThinkingTimeline(events)), json(stored(events)), name);
    }
  });

  test('a run with <think> tags in its text, a processing block, a failed tool and an error', () => {
    const events = thinkRun();
    const items = buildThinkingTimeline(events);
    assert.deepEqual(json(items), json(stored(events)));
    assert.deepEqual(
      items.map((i) => [
        i.type,
        'content' in i ? i.content : i.type === 'tool_execution' ? i.result?.error : undefined,
        'source' in i ? i.source : undefined,
      ]),
      [
        ['thinking', 'I should   greet.', 'stream'],
        ['system_message', 'Looking things up', undefined],
        ['thinking', 'and be brief', 'tag'], // the first tag section equals the streamed block: dropped
        ['thinking', 'tail', 'tag'], // `<thin` + `k>tail`: a tag split across deltas, never closed
        ['agent_message', 'Hello  there</think> stray', undefined], // a stray closing tag stays text
        ['tool_execution', 'boom', undefined],
        ['system_message', 'minor', undefined],
      ],
    );
  });

  test('while streaming: the open blocks are ephemeral; the pending history says the same', () => {
    const events = thinkRun();
    for (let n = 1; n <= events.length; n++) {
      const prefix = events.slice(0, n);
      // The one deliberate difference: text that may be the start of a tag (`<thin`) is held back until
      // it is decided, where the stored snapshot shows it as text for a moment.
      const last = prefix.at(-1) as { delta?: string };
      if (last.delta?.endsWith('<thin')) continue;
      const state = n === events.length ? 'persisted' : 'pending';
      assert.deepEqual(json(buildThinkingTimeline(prefix)), json(stored(prefix, state)), `after ${n} events`);
    }
    const mid = buildThinkingTimeline(events.slice(0, 12)); // …, `<think>I should greet.</think>Hello`
    assert.deepEqual(
      mid.map((i) => i.type),
      ['thinking', 'system_message', 'ephemeral_message'],
    );
  });
});

describe('stored history and the live stream merge', () => {
  test('a reload mid-run, then the rest of the run live: each item once, the streamed thinking wins', () => {
    const events = thinkRun();
    const cut = 11;
    const history = stored(events.slice(0, cut), 'pending');
    const user: TimelineItem = { type: 'user_message', id: 'u1', content: 'hi', timestamp: '2025-11-23T00:00:00.000Z' };
    // The client reloads the history, then follows the run from the start of its log (a resumed stream).
    const items = buildThinkingTimeline([user, ...history, ...events]);
    assert.deepEqual(json(items), json([user, ...stored(events)]));
  });

  test('a non-streaming answer: thinking only in tags is extracted', () => {
    const events = [
      ev(0, { type: 'run-start', version: 2, messageId: 'm2' }),
      ev(1, { type: 'text-start', blockId: 'b' }),
      ev(2, { type: 'text-delta', blockId: 'b', delta: '<think>Planning...</think>I will help you.' }),
      ev(3, { type: 'text-end', blockId: 'b' }),
      ev(4, { type: 'run-finish', finishReason: 'stop' }),
    ];
    assert.deepEqual(
      buildThinkingTimeline(events).map((i) => [i.type, 'content' in i ? i.content : undefined]),
      [
        ['thinking', 'Planning...'],
        ['agent_message', 'I will help you.'],
      ],
    );
  });
});

describe('the streaming <think> splitter equals the store extraction', () => {
  const token = fc.constantFrom(
    '<think>',
    '</think>',
    '<thinking>',
    '</thinking>',
    '<THINK >',
    '<think\n>',
    '</thinkin>',
    '<thin',
    '<',
    '>',
    'a',
    ' ',
    'b c',
    '\n',
    'é',
    '<t',
    '</',
  );
  test('any text, split anywhere', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 8 }), (tokens, cuts) => {
        const text = tokens.join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const s = new ThinkSplitter();
        let at = 0;
        for (const p of points) {
          s.push(text.slice(at, p));
          at = p;
        }
        s.push(text.slice(at));
        s.end();
        const expected = extractThinkTags(text);
        assert.deepEqual(expected, referenceThinkTags(text));
        assert.deepEqual(
          { content: s.split.content, thinking: s.split.thinking },
          { content: expected.content, thinking: expected.thinking },
        );
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 2000) },
    );
  });
});

/**
 * An independent whole-text reference of the rules (a regular expression over the whole text, as the
 * store did before it used core's splitter): the streaming splitter and the store must equal it.
 */
function referenceThinkTags(text: string): { content: string; thinking: string[]; unclosed: boolean } {
  const tag = /<(\/?)(think|thinking)\s*>/gi;
  const thinking: string[] = [];
  const outside: string[] = [];
  let pos = 0;
  let open: { name: string; from: number } | undefined;
  for (let m = tag.exec(text); m !== null; m = tag.exec(text)) {
    const closing = m[1] === '/';
    const name = m[2].toLowerCase();
    if (!open) {
      if (closing) continue;
      outside.push(text.slice(pos, m.index));
      open = { name, from: m.index + m[0].length };
    } else if (closing && name === open.name) {
      thinking.push(text.slice(open.from, m.index));
      open = undefined;
      pos = m.index + m[0].length;
    }
  }
  if (open) {
    thinking.push(text.slice(open.from));
    return { content: outside.join('').trim(), thinking, unclosed: true };
  }
  outside.push(text.slice(pos));
  const content = outside.join('');
  return { content: thinking.length > 0 ? content.trim() : content, thinking, unclosed: false };
}

describe('timeline is linear', () => {
  test('80,000 deltas inside and outside <think>, the timeline read every 100 events', () => {
    const counts: number[] = [];
    for (const n of [20_000, 80_000]) {
      const b = createTimelineBuilder();
      let seq = 0;
      b.apply(ev(seq++, { type: 'run-start', version: 2, messageId: 'm' }));
      b.apply(ev(seq++, { type: 'text-start', blockId: 't' }));
      b.apply(ev(seq++, { type: 'text-delta', blockId: 't', delta: '<think>' }));
      for (let i = 0; i < n; i++) {
        b.apply(ev(seq++, { type: 'text-delta', blockId: 't', delta: i === n / 2 ? '</think>' : 'x' }));
        if (i % 100 === 0) b.items();
      }
      b.apply(ev(seq++, { type: 'text-end', blockId: 't' }));
      const items = b.items();
      assert.deepEqual(
        items.map((i) => [i.type, 'content' in i ? i.content.length : 0]),
        [
          ['thinking', n / 2],
          ['agent_message', n / 2 - 1],
        ],
      );
      counts.push(b.work.joinedChars);
      // Each character is joined a bounded number of times: into the block text, the message text, and its section.
      assert.ok(b.work.joinedChars <= 3 * n + 100, `${b.work.joinedChars} characters joined for ${n} deltas`);
    }
    assert.ok(counts[1] / counts[0] <= 4.5, `work ratio ${counts[1] / counts[0]}`);
  });
});
