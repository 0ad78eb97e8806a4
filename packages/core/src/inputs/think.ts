/**
 * `<think>` tags in answer text (reasoning that open models write into the answer), in two forms:
 *
 * - `withThinkTags(decoder)` post-processes any decoder: each of its text blocks is run through the
 *   streaming tag extractor (`transforms/think-tags.ts`) and split into thinking reasoning blocks and
 *   text blocks. `withThinkTags(createOpenAIChatDecoder())` gives open models' `<think>` output
 *   (vLLM, Ollama, llama.cpp, Groq `reasoning_format: raw`, …) its reasoning.
 * - The `think` framework (`createThinkDecoder`): raw text streams. Its input values are text chunks
 *   (JSON strings, or `{"text"|"delta"|"content": "…"}` objects); a stream of OpenAI-compatible
 *   chat chunks is handed to the Chat Completions decoder wrapped in `withThinkTags`. For a raw text
 *   body (no JSON at all, e.g. the AI SDK text stream protocol), `createThinkTextReader()` reads the
 *   bytes directly.
 */
import { describe } from '../codec/framing.ts';
import type { Machine } from '../machine.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { CanonicalEvent, EventInit, EventOf } from '../model/events.ts';
import { BlockAssembler } from '../transforms/blocks.ts';
import { createThinkTagExtractor, type ThinkSegment, type ThinkTagExtractor, type ThinkTagOptions } from '../transforms/think-tags.ts';
import type { Decoder } from './decoder.ts';
import { isObject, Kit, kindOf, rest } from './kit/index.ts';
import { createOpenAIChatDecoder, detectOpenAIChat } from './openai-chat.ts';

export type { ThinkSegment, ThinkTagOptions } from '../transforms/think-tags.ts';

/** Options of the `think` framework: the decoder options and the tag options. */
export interface ThinkDecoderOptions extends DecoderOptions, ThinkTagOptions {}

/** One text block of the wrapped decoder being split. */
interface Split {
  x: ThinkTagExtractor;
  /** The wrapped decoder's text-start (held back until we know what the block holds). */
  start: EventOf<'text-start'>;
  /** Open text part, if any. */
  textId?: string;
  /** Whether the block's own id has been given to a text part. */
  usedOwnId: boolean;
  /** Open reasoning part, if any. */
  reasoningId?: string;
  count: number;
  /** Citations that arrived while no text part was open. */
  citations: EventOf<'citation'>[];
}

/**
 * Wraps a decoder so that `<think>…</think>` in its text blocks becomes reasoning. Every text block
 * of the inner decoder is split into parts, in order: text parts (the first keeps the block's id and
 * providerMetadata; later ones are `<id>:text-<n>`) and thinking reasoning blocks (`<id>:think-<n>`,
 * one per think section). A block without tags comes out unchanged (same id). Events are renumbered
 * (`seq`); everything else passes through.
 */
export function withThinkTags(decoder: Decoder, options: ThinkTagOptions = {}): Decoder {
  const splits = new Map<string, Split>();
  let seq = 0;

  function stamp(e: CanonicalEvent, out: CanonicalEvent[]): void {
    e.seq = seq++;
    out.push(e);
  }

  /** An event derived from `from` (same run, time and subagent). */
  function make(init: EventInit, from: CanonicalEvent, out: CanonicalEvent[]): void {
    const e = { ...init, runId: from.runId, seq: 0, ts: from.ts } as CanonicalEvent;
    if (from.subagentId !== undefined) e.subagentId = from.subagentId;
    stamp(e, out);
  }

  function closeText(s: Split, from: CanonicalEvent, out: CanonicalEvent[], end?: EventOf<'text-end'>): void {
    if (s.textId === undefined) return;
    const e: EventInit = { type: 'text-end', blockId: s.textId };
    if (end?.providerMetadata) e.providerMetadata = end.providerMetadata;
    s.textId = undefined;
    make(e, from, out);
  }

  function closeReasoning(s: Split, from: CanonicalEvent, out: CanonicalEvent[]): void {
    if (s.reasoningId === undefined) return;
    make({ type: 'reasoning-end', blockId: s.reasoningId }, from, out);
    s.reasoningId = undefined;
  }

  function openText(s: Split, from: CanonicalEvent, out: CanonicalEvent[]): string {
    if (s.textId !== undefined) return s.textId;
    closeReasoning(s, from, out);
    const id = s.usedOwnId ? `${s.start.blockId}:text-${++s.count}` : s.start.blockId;
    s.usedOwnId = true;
    s.textId = id;
    const e: EventInit = { type: 'text-start', blockId: id };
    if (s.start.providerMetadata) e.providerMetadata = s.start.providerMetadata;
    make(e, s.start, out);
    for (const c of s.citations) make({ type: 'citation', blockId: id, citation: c.citation }, c, out);
    s.citations = [];
    return id;
  }

  function segment(s: Split, seg: ThinkSegment, from: CanonicalEvent, out: CanonicalEvent[]): void {
    if (seg.kind === 'text') {
      const id = openText(s, from, out);
      make({ type: 'text-delta', blockId: id, delta: seg.text }, from, out);
      return;
    }
    if (seg.open) closeReasoning(s, from, out);
    if (s.reasoningId === undefined) {
      closeText(s, from, out);
      s.reasoningId = `${s.start.blockId}:think-${++s.count}`;
      make({ type: 'reasoning-start', blockId: s.reasoningId, variant: 'thinking' }, from, out);
    }
    if (seg.text) make({ type: 'reasoning-delta', blockId: s.reasoningId, delta: seg.text }, from, out);
    if (seg.close) closeReasoning(s, from, out);
  }

  function process(events: CanonicalEvent[]): CanonicalEvent[] {
    if (events.length === 0) return events;
    const out: CanonicalEvent[] = [];
    for (const e of events) {
      switch (e.type) {
        case 'text-start':
          splits.set(e.blockId, { x: createThinkTagExtractor(options), start: e, usedOwnId: false, count: 0, citations: [] });
          continue;
        case 'text-delta': {
          const s = splits.get(e.blockId);
          if (!s) break;
          for (const seg of s.x.push(e.delta)) segment(s, seg, e, out);
          continue;
        }
        case 'citation': {
          const s = splits.get(e.blockId);
          if (!s) break;
          if (s.textId !== undefined) make({ type: 'citation', blockId: s.textId, citation: e.citation }, e, out);
          else s.citations.push(e);
          continue;
        }
        case 'text-end': {
          const s = splits.get(e.blockId);
          if (!s) break;
          splits.delete(e.blockId);
          for (const seg of s.x.end()) segment(s, seg, e, out);
          closeReasoning(s, e, out);
          // The block's closing providerMetadata and waiting citations need a text part; so does a
          // block that produced nothing at all (kept as the empty block it was).
          const empty = !s.usedOwnId && s.count === 0;
          if (s.textId === undefined && (empty || e.providerMetadata !== undefined || s.citations.length > 0)) openText(s, e, out);
          closeText(s, e, out, e);
          continue;
        }
      }
      stamp(e, out);
    }
    return out;
  }

  return {
    push: (value, where) => process(decoder.push(value, where)),
    fault: (code, message, where) => process(decoder.fault(code, message, where)),
    end: () => process(decoder.end()),
  };
}

const TEXT_KEYS = ['text', 'delta', 'content'] as const;

/**
 * The raw-text side of the `think` framework: text chunks through the tag extractor into the shared
 * block rules. A text stream has no terminal event, so its end is a normal end (`stop`).
 */
function createTextChunkDecoder(options: ThinkDecoderOptions): Decoder {
  const kit = new Kit(options, 'think');
  const { out, error, raw } = kit;
  const blocks = new BlockAssembler(out);
  const x = createThinkTagExtractor(options);

  function apply(segments: ThinkSegment[]): void {
    for (const seg of segments) {
      if (seg.kind === 'text') {
        blocks.textDelta(seg.text);
        continue;
      }
      if (seg.open) blocks.closeThinking();
      if (seg.text || seg.open) blocks.thinkingText(seg.text);
      if (seg.close) blocks.closeThinking();
    }
  }

  return kit.decoder({
    push(value, where) {
      if (typeof value === 'string') {
        out.start();
        apply(x.push(value));
        return;
      }
      if (!isObject(value)) {
        const loc = { ...where, expected: 'a string or an object with a string "text"' };
        return error(
          'invalid_event',
          `${describe(where ?? {})}: expected a text chunk (a JSON string, or an object with a string "text", "delta" or "content"), got ${kindOf(value)}`,
          loc,
        );
      }
      const key = TEXT_KEYS.find((k) => typeof value[k] === 'string');
      if (key === undefined) return raw(value, 'no string "text", "delta" or "content"', where);
      out.start();
      apply(x.push(value[key] as string));
      const others = rest(value, [key]);
      if (others) raw(others, `fields of a text chunk other than "${key}"`, where);
    },
    finish() {
      apply(x.end());
      blocks.closeAll();
      out.emit({ type: 'run-finish', finishReason: 'stop' });
    },
  });
}

/**
 * Creates a decoder for the `think` framework: text chunks with `<think>` tags (JSON strings or
 * `{"text": …}` objects) → text and thinking blocks; OpenAI-compatible chat chunks (recognised from
 * the first value) go to `withThinkTags(createOpenAIChatDecoder())`. Never auto-detected.
 */
export function createThinkDecoder(options: ThinkDecoderOptions = {}): Decoder {
  let inner: Decoder | undefined;
  const pick = (value: unknown): Decoder => {
    inner ??= detectOpenAIChat(value) ? withThinkTags(createOpenAIChatDecoder(options), options) : createTextChunkDecoder(options);
    return inner;
  };
  return {
    push: (value, where) => pick(value).push(value, where),
    fault: (code, message, where) => pick(undefined).fault(code, message, where),
    end: () => pick(undefined).end(),
  };
}

/**
 * The Chat Completions decoder with a **leading** think section extracted (`onlyAtStart` unless the
 * options say otherwise): what open models served without a reasoning parser (vLLM, Ollama,
 * llama.cpp, Groq `reasoning_format: raw`, …) stream. A response that does not start with `<think>`
 * is decoded exactly as `createOpenAIChatDecoder` decodes it, so this is safe as the default for
 * `openai-chat`.
 */
export function createOpenAIChatThinkDecoder(options: ThinkDecoderOptions = {}): Decoder {
  return withThinkTags(createOpenAIChatDecoder(options), { ...options, onlyAtStart: options.onlyAtStart ?? true });
}

/**
 * Reads a raw text body (bytes or text, no JSON framing: the AI SDK text stream protocol, a plain
 * completion stream) with `<think>` tags into canonical events. Chunks may split tags and UTF-8
 * characters anywhere.
 *
 * @example
 * for await (const e of run(response.body, createThinkTextReader())) console.log(e.type);
 */
export function createThinkTextReader(options: ThinkDecoderOptions = {}): Machine<string | Uint8Array, CanonicalEvent> {
  const decoder = createTextChunkDecoder(options);
  const utf8 = new TextDecoder();
  return {
    push(chunk) {
      const text = typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true });
      return text ? decoder.push(text) : [];
    },
    end() {
      const rest = utf8.decode();
      const out = rest ? decoder.push(rest) : [];
      for (const e of decoder.end()) out.push(e);
      return out;
    },
  };
}
