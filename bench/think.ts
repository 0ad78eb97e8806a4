/**
 * Section 4 of `npm run bench`: `<think>` extraction, ours against the `ai` package's
 * `extractReasoningMiddleware`, on the same deltas (think sections opened and closed all along the
 * text, tags split at every position).
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  CANONICAL_VERSION,
  type CanonicalEvent,
  createDecoder,
  createThinkTagExtractor,
  type Decoder,
  framed,
  withThinkTags,
} from '@switchboard/core';
import { extractReasoningMiddleware, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { byteStream, type ThinkFixture, thinkFixture } from './fixtures.ts';
import { type Case, FAST_RUNS, fail, fixed, int, type Measured, measure, ratio, runsText, sameText, table } from './harness.ts';

export interface ThinkOptions {
  deltas: number;
  runs: number;
  /** A fast contender runs until its runs add up to about this (ms), up to FAST_RUNS times (0: exactly `runs`). */
  fastMs: number;
}

/** What every contender hands back: the answer text and the reasoning, joined, and the number of reasoning blocks. */
interface Extracted {
  text: string;
  reasoning: string;
  reasoningBlocks: number;
}

function check(label: string, x: Extracted, f: ThinkFixture, blocks: boolean): void {
  sameText(label, 'answer text', x.text, f.text);
  sameText(label, 'reasoning', x.reasoning, f.reasoning);
  if (blocks && x.reasoningBlocks !== f.sections) fail(`${label}: ${x.reasoningBlocks} reasoning blocks, expected ${f.sections}`);
}

function fromEvents(): { take(events: CanonicalEvent[]): void; result(): Extracted } {
  const x: Extracted = { text: '', reasoning: '', reasoningBlocks: 0 };
  return {
    take(events) {
      for (const e of events) {
        if (e.type === 'text-delta') x.text += e.delta;
        else if (e.type === 'reasoning-delta') x.reasoning += e.delta;
        else if (e.type === 'reasoning-start') x.reasoningBlocks++;
        else if (e.type === 'error') fail(`think: error event ${JSON.stringify(e)}`);
      }
    },
    result: () => x,
  };
}

/** The canonical events of one text block holding the deltas (what any decoder hands `withThinkTags`). */
function canonicalEvents(f: ThinkFixture): CanonicalEvent[] {
  const runId = 'run_bench';
  const ts = 1767225600000;
  let seq = 0;
  const stamp = (e: object) => ({ ...e, runId, seq: seq++, ts }) as CanonicalEvent;
  const events = [
    stamp({ type: 'run-start', version: CANONICAL_VERSION, messageId: 'msg_bench', provider: 'openai-chat' }),
    stamp({ type: 'text-start', blockId: 'txt_0' }),
  ];
  for (const delta of f.deltas) events.push(stamp({ type: 'text-delta', blockId: 'txt_0', delta }));
  events.push(stamp({ type: 'text-end', blockId: 'txt_0' }), stamp({ type: 'run-finish', finishReason: 'stop' }));
  return events;
}

/** A decoder whose input values are canonical events already: isolates the `withThinkTags` transform. */
function passThrough(): Decoder {
  return { push: (value) => [value as CanonicalEvent], fault: () => [], end: () => [] };
}

/** The LanguageModelV4 stream parts of the same text (what a provider hands the middleware). */
function modelParts(f: ThinkFixture): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 'txt_0' },
  ];
  for (const delta of f.deltas) parts.push({ type: 'text-delta', id: 'txt_0', delta });
  parts.push(
    { type: 'text-end', id: 'txt_0' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: f.deltas.length, text: undefined, reasoning: undefined },
      },
    },
  );
  return parts;
}

async function readParts(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<Extracted> {
  const x: Extracted = { text: '', reasoning: '', reasoningBlocks: 0 };
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return x;
    if (value.type === 'text-delta') x.text += value.delta;
    else if (value.type === 'reasoning-delta') x.reasoning += value.delta;
    else if (value.type === 'reasoning-start') x.reasoningBlocks++;
    else if (value.type === 'error') fail(`think: error part ${JSON.stringify(value)}`);
  }
}

function contenders(f: ThinkFixture): Case<Extracted>[] {
  const events = canonicalEvents(f);
  const parts = modelParts(f);
  const mock = () => new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const callOptions = { prompt: [] } as unknown as Parameters<MockLanguageModelV4['doStream']>[0];
  const userPrompt = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] } as Parameters<
    MockLanguageModelV4['doStream']
  >[0];
  return [
    {
      key: 'extractor',
      name: '(a) ours: createThinkTagExtractor(), delta strings → text / reasoning segments',
      async run() {
        const tags = createThinkTagExtractor();
        const x: Extracted = { text: '', reasoning: '', reasoningBlocks: 0 };
        const take = (segments: ReturnType<typeof tags.push>) => {
          for (const s of segments) {
            if (s.kind === 'text') x.text += s.text;
            else {
              x.reasoning += s.text;
              if (s.open) x.reasoningBlocks++;
            }
          }
        };
        for (const d of f.deltas) take(tags.push(d));
        take(tags.end());
        return x;
      },
      check: (x, label) => check(label, x, f, true),
    },
    {
      key: 'transform',
      name: '(b) ours: withThinkTags(), canonical text-delta events → text / reasoning events',
      async run() {
        const d = withThinkTags(passThrough());
        const out = fromEvents();
        for (const e of events) out.take(d.push(e));
        out.take(d.end());
        return out.result();
      },
      check: (x, label) => check(label, x, f, true),
    },
    {
      key: 'decode',
      name: "(c) ours: framed(createDecoder('think')), Chat Completions SSE bytes → events",
      async run() {
        const d = framed(createDecoder('think'));
        const out = fromEvents();
        for (const chunk of f.chatChunks) out.take(d.push(chunk));
        out.take(d.end());
        return out.result();
      },
      check: (x, label) => check(label, x, f, true),
    },
    {
      key: 'middleware',
      name: "(d) official: extractReasoningMiddleware({ tagName: 'think', separator: '' }), model stream parts",
      async run() {
        const model = wrapLanguageModel({ model: mock(), middleware: extractReasoningMiddleware({ tagName: 'think', separator: '' }) });
        const { stream } = await model.doStream(callOptions);
        return readParts(stream);
      },
      check: (x, label) => check(label, x, f, true),
    },
    {
      key: 'middleware_bytes',
      name: '(e) official: @ai-sdk/openai .chat() over the same SSE bytes, wrapped in extractReasoningMiddleware',
      async run() {
        const openai = createOpenAI({
          apiKey: 'x',
          baseURL: 'http://127.0.0.1:1/v1',
          fetch: async () => new Response(byteStream(f.chatChunks), { headers: { 'content-type': 'text/event-stream' } }),
        });
        const model = wrapLanguageModel({
          model: openai.chat('qwen3-32b'),
          middleware: extractReasoningMiddleware({ tagName: 'think', separator: '' }),
        });
        const { stream } = await model.doStream(userPrompt);
        return readParts(stream);
      },
      check: (x, label) => check(label, x, f, true),
    },
    {
      key: 'stream_only',
      name: '(f) reference: the mock model stream of (d) read without the middleware',
      async run() {
        const { stream } = await mock().doStream(callOptions);
        return readParts(stream);
      },
      // No extraction here: the text is the whole text, tags included.
      check: (x, label) => sameText(label, 'text', x.text, f.whole),
    },
  ];
}

export interface ThinkResult {
  deltas: number;
  sections: number;
  results: (Measured & { nsPerDelta: number })[];
  middlewareVsTransform: number;
  middlewareOwnVsTransform: number;
  middlewareBytesVsDecode: number;
  middlewareVsExtractor: number;
}

export async function think(options: ThinkOptions): Promise<ThinkResult> {
  const f = thinkFixture(options.deltas);
  console.log(
    `\n4) <think> extraction: ours vs the ai package's extractReasoningMiddleware, same deltas\n` +
      `   input: ${int(f.deltas.length)} text deltas of 1–6 characters, ${int(f.sections)} think sections, tags split anywhere ` +
      `(${fixed(f.whole.length / 1e3, 0)} k characters; ${fixed(f.chatBytes / 1e6, 2)} MB as Chat Completions SSE for (c)); ` +
      `1 warm-up + median of ${runsText(options.runs, options.fastMs, 0)} each, interleaved, full GC before each\n`,
  );
  const measured = await measure(contenders(f) as Case[], { runs: options.runs, minTotalMs: options.fastMs, maxRuns: FAST_RUNS });
  const results = measured.map((r) => ({ ...r, nsPerDelta: r.ns / f.deltas.length }));
  const ns = (k: string) => results.find((r) => r.key === k)?.ns ?? Number.NaN;
  const pair: Record<string, string> = { middleware: 'transform', middleware_bytes: 'decode' };
  const letter = (k: string) => results.find((r) => r.key === k)?.name.slice(0, 3) ?? '?';
  console.log(
    table(
      ['contender', 'ns/delta', 'ms/run', 'min–max ms', 'official ÷ ours'],
      results.map((r) => [
        r.name,
        int(r.nsPerDelta),
        fixed(r.ns / 1e6),
        `${fixed(Math.min(...r.runsMs))}–${fixed(Math.max(...r.runsMs))}`,
        pair[r.key] ? `${ratio(r.ns / ns(pair[r.key]))} vs ${letter(pair[r.key])}` : '',
      ]),
    ),
  );
  const result: ThinkResult = {
    deltas: f.deltas.length,
    sections: f.sections,
    results,
    middlewareVsTransform: ns('middleware') / ns('transform'),
    middlewareOwnVsTransform: (ns('middleware') - ns('stream_only')) / ns('transform'),
    middlewareBytesVsDecode: ns('middleware_bytes') / ns('decode'),
    middlewareVsExtractor: ns('middleware') / ns('extractor'),
  };
  console.log(
    `\n  checks: on every run, every contender gives exactly the expected answer text and reasoning (nothing injected) ` +
      `and one reasoning block per think section.\n` +
      `  the middleware costs ${ratio(result.middlewareVsTransform)} ours (b) (stream parts in and out vs canonical events in and out); ` +
      `net of the stream it runs on, (d) − (f), ${ratio(result.middlewareOwnVsTransform)}; ${ratio(result.middlewareVsExtractor)} the bare extractor (a)\n` +
      `  from the same bytes, the official provider + middleware (e) costs ${ratio(result.middlewareBytesVsDecode)} our decoder (c)`,
  );
  return result;
}
