/**
 * The stored assistant message → the thinking timeline (thinking, agent_message, user_message,
 * tool_execution, system_message, ephemeral_message): the ws gateway's history, and what the client's
 * timeline shows live. `<think>` tags in stored text are deduplicated against the streamed thinking blocks.
 */
import type { HistoryOptions } from '../../message/history-options.ts';
import type { AssistantMessage, PersistedMessage, TextPart } from '../../message/types.ts';
import type { Json } from '../../model/events.ts';
import type { WorkCounter } from '../../transforms/text-buffer.ts';
import { splitThinkTags, ThinkSplitter } from '../../transforms/think-tags.ts';
import type { TimelineItem, ToolCallData, ToolResultData } from './schema.ts';

/** What `<think>` extraction found in a text. */
export interface ThinkExtraction {
  /** The text without its thinking blocks. */
  content: string;
  /** The thinking blocks, in order. */
  thinking: string[];
  /** True when the last block was never closed (it runs to the end of the text). */
  unclosed: boolean;
}

/**
 * Extracts `<think>…</think>` (and `<thinking>…</thinking>`) blocks from stored text, with core's
 * `splitThinkTags` (the client's timeline splits live text with the same rules). Malformed input
 * keeps its content: an unclosed block runs to the end, a stray closing tag stays as text, a tag
 * inside a block is part of it.
 */
export function extractThinkTags(text: string): ThinkExtraction {
  const { content, thinking, open } = splitThinkTags(text);
  return { content, thinking, unclosed: open };
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const iso = (ms: number) => new Date(ms).toISOString();

/** One stored assistant message → its timeline items (a part still streaming is an `ephemeral_message`). */
export function timelineOfAssistant(m: AssistantMessage, sendReasoning: boolean): TimelineItem[] {
  return itemsOf(m, sendReasoning, m.persistenceState !== 'persisted', (p) => extractThinkTags(p.text));
}

/** The timeline items of a message; `split` separates a text part's `<think>` sections from its content. */
function itemsOf(
  m: AssistantMessage,
  sendReasoning: boolean,
  live: boolean,
  split: (p: TextPart) => { content: string; thinking: string[] },
): TimelineItem[] {
  const out: TimelineItem[] = [];
  // Streamed thinking wins over the same block found in `<think>` tags of the stored text.
  const streamed = new Set<string>();
  for (const p of m.metadata.parts) if (p.type === 'reasoning' && p.variant === 'thinking') streamed.add(norm(p.text));
  for (const p of m.metadata.parts) {
    const ephemeral = live && 'state' in p && p.state === 'streaming';
    switch (p.type) {
      case 'reasoning': {
        if (!sendReasoning || p.text === '') break;
        const id = `${m.id}:${p.blockId}`;
        if (ephemeral) out.push({ type: 'ephemeral_message', id, messageType: p.variant, content: p.text, timestamp: iso(p.startedAt) });
        else if (p.variant === 'processing') {
          const item: TimelineItem = { type: 'system_message', id, content: p.text, timestamp: iso(p.startedAt), kind: 'processing' };
          if (p.durationMs !== undefined) item.durationMs = p.durationMs;
          out.push(item);
        } else {
          const item: TimelineItem = { type: 'thinking', id, content: p.text, timestamp: iso(p.startedAt), source: 'stream' };
          if (p.durationMs !== undefined) item.durationMs = p.durationMs;
          out.push(item);
        }
        break;
      }
      case 'text': {
        const id = `${m.id}:${p.blockId}`;
        const { content, thinking } = split(p);
        thinking.forEach((t, i) => {
          if (!sendReasoning || streamed.has(norm(t)) || norm(t) === '') return;
          streamed.add(norm(t));
          out.push({ type: 'thinking', id: `${id}:think-${i}`, content: t.trim(), timestamp: iso(p.startedAt), source: 'tag' });
        });
        if (content.trim() === '') break;
        if (ephemeral) out.push({ type: 'ephemeral_message', id, messageType: 'agent_message', content, timestamp: iso(p.startedAt) });
        else out.push({ type: 'agent_message', id, content, timestamp: iso(p.startedAt) });
        break;
      }
      case 'tool': {
        const call: ToolCallData = { id: p.toolCallId, name: p.toolName, input: p.input ?? (p.inputText as Json | undefined) };
        if (p.providerExecuted) call.providerExecuted = true;
        const item: Extract<TimelineItem, { type: 'tool_execution' }> = {
          type: 'tool_execution',
          id: `${m.id}:${p.toolCallId}`,
          call,
          timestamp: iso(p.startedAt),
        };
        if (p.state === 'output-available' || p.state === 'output-error') {
          const result: ToolResultData = { isError: p.state === 'output-error', timestamp: iso(p.endedAt ?? p.startedAt) };
          if (p.state === 'output-available') result.output = p.output ?? null;
          else result.error = p.errorText ?? 'error';
          item.result = result;
        }
        out.push(item);
        break;
      }
      default:
        break;
    }
  }
  for (const e of m.metadata.errors) {
    out.push({ type: 'system_message', id: `${m.id}:error-${e.seq}`, content: e.message, timestamp: iso(e.ts), kind: 'error' });
  }
  return out;
}

/** Stored messages → the thinking timeline. */
export function toTimeline(messages: readonly PersistedMessage[], options: HistoryOptions = {}): TimelineItem[] {
  const out: TimelineItem[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') out.push(...timelineOfAssistant(m, options.sendReasoning ?? true));
    else if (m.role === 'user') out.push({ type: 'user_message', id: m.id, content: m.content, timestamp: iso(m.createdAt) });
    else out.push({ type: 'system_message', id: m.id, content: m.content, timestamp: iso(m.createdAt), kind: 'processing' });
  }
  return out;
}

/** A memoized fold snapshot → timeline conversion (see {@link createTimelineView}). */
export interface TimelineView {
  /** The timeline items of a fold snapshot (a block still streaming is an `ephemeral_message`). */
  view(m: AssistantMessage): TimelineItem[];
}

export interface TimelineViewOptions {
  /** Include thinking and processing blocks (default true). */
  sendReasoning?: boolean;
  /** Counts string work. */
  work?: WorkCounter;
}

/**
 * The timeline of a live fold, read after any event at the cost of what arrived: each text block's
 * `<think>` sections are split as its text grows (core's `ThinkSplitter`, fed only the new text),
 * and the same snapshot gives the same items. The items are {@link timelineOfAssistant}'s.
 *
 * @example
 * const fold = createMessageFold(); const view = createTimelineView();
 * for (const e of events) fold.push(e);
 * render(view.view(fold.snapshot()));
 */
export function createTimelineView(options: TimelineViewOptions = {}): TimelineView {
  const sendReasoning = options.sendReasoning ?? true;
  /** A splitter per text block (by block id and start seq) and how much of its text it has seen. */
  const splitters = new Map<string, { splitter: ThinkSplitter; fed: number; ended: boolean }>();
  let last: { message: AssistantMessage; items: TimelineItem[] } | undefined;
  /** The message is still streaming: a text block not done may grow (once the run ended, none will). */
  let live = true;
  const split = (p: TextPart) => {
    const key = `${p.blockId}@${p.seq}`;
    let s = splitters.get(key);
    if (!s) {
      s = { splitter: new ThinkSplitter(options.work), fed: 0, ended: false };
      splitters.set(key, s);
    }
    if (p.text.length > s.fed) {
      s.splitter.push(p.text.slice(s.fed));
      s.fed = p.text.length;
    }
    if ((p.state === 'done' || !live) && !s.ended) {
      s.splitter.end();
      s.ended = true;
    }
    return s.splitter.split;
  };
  return {
    view(m) {
      if (last?.message === m) return last.items;
      live = m.metadata.status === 'streaming';
      const items = itemsOf(m, sendReasoning, live, split);
      last = { message: m, items };
      return items;
    },
  };
}
