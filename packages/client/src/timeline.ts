/**
 * Seed 002's thinking timeline, live: canonical events (and stored timeline items) → the ordered
 * items a chat renders — `thinking`, `agent_message`, `user_message`, `tool_execution`,
 * `system_message` (processing blocks, errors) and `ephemeral_message` (blocks still streaming).
 *
 * The item shapes and ids are those of the store's `GET /api/chats/:id/messages?protocol=timeline`,
 * so a reloaded history and a live stream merge: items are deduplicated by id (a later one replaces
 * an earlier one in place — the live stream over the stored copy of the same message).
 *
 * Thinking arrives two ways: streamed reasoning blocks, and `<think>` tags inside the text of models
 * that write their reasoning into the answer. Tags are split out as the text streams (incrementally,
 * core's `ThinkSplitter`); a tag section whose text equals a streamed thinking block of the same message is
 * dropped — the streamed one wins, as the seed prescribes.
 *
 * Incremental: `createTimelineBuilder().apply(event)` is O(1) amortised per event (text is split as
 * it arrives); `items()` rebuilds only the runs that changed.
 */
import {
  type CanonicalEvent,
  createWorkCounter,
  ThinkSplitter,
  type TimelineItem,
  type ToolCallData,
  type ToolResultData,
  type WorkCounter,
} from '@switchboard/core';
import { createMessageAccumulator, type MessageAccumulator, type ToolPart } from './accumulator.ts';

export type { TimelineItem, ToolCallData, ToolResultData } from '@switchboard/core';

const ITEM_TYPES = new Set(['thinking', 'agent_message', 'user_message', 'tool_execution', 'system_message', 'ephemeral_message']);

/** True for a timeline item (as opposed to a canonical event). */
export function isTimelineItem(value: unknown): value is TimelineItem {
  return typeof value === 'object' && value !== null && ITEM_TYPES.has((value as { type?: unknown }).type as string);
}

export interface TimelineOptions {
  /** Include thinking and processing blocks (default true). */
  sendReasoning?: boolean;
  /** Counts string work. */
  work?: WorkCounter;
}

export interface TimelineBuilder {
  /** Applies a canonical event (of any run) or a timeline item (a stored one, a user message just sent). */
  apply(input: CanonicalEvent | TimelineItem): void;
  /** The timeline so far. */
  items(): TimelineItem[];
  readonly work: WorkCounter;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const iso = (ms: number) => new Date(ms).toISOString();

interface RunState {
  acc: MessageAccumulator;
  /** A splitter per text block (keyed by the part's key). */
  splitters: Map<string, ThinkSplitter>;
  openText: Map<string, ThinkSplitter>;
  cachedVersion: number;
  cached: TimelineItem[];
}

/** One position of the timeline: a stored / given item, or a run (its items expand there). */
type Slot = { item: TimelineItem } | { run: RunState };

/** Creates an incremental timeline builder. */
export function createTimelineBuilder(options: TimelineOptions = {}): TimelineBuilder {
  const sendReasoning = options.sendReasoning ?? true;
  const work = options.work ?? createWorkCounter();
  const slots: Slot[] = [];
  const runs = new Map<string, RunState>();

  function runOf(runId: string): RunState {
    let r = runs.get(runId);
    if (!r) {
      r = { acc: createMessageAccumulator({ work }), splitters: new Map(), openText: new Map(), cachedVersion: -1, cached: [] };
      runs.set(runId, r);
      slots.push({ run: r });
    }
    return r;
  }

  function apply(input: CanonicalEvent | TimelineItem): void {
    if (isTimelineItem(input)) {
      slots.push({ item: input });
      return;
    }
    const e = input;
    const r = runOf(e.runId);
    if (!r.acc.apply(e)) return;
    switch (e.type) {
      case 'text-start': {
        const s = new ThinkSplitter(work);
        r.openText.set(e.blockId, s);
        r.splitters.set(`${e.blockId}@${e.seq}`, s);
        break;
      }
      case 'text-delta': {
        let s = r.openText.get(e.blockId);
        if (!s) {
          s = new ThinkSplitter(work);
          r.openText.set(e.blockId, s);
          r.splitters.set(`${e.blockId}@${e.seq}`, s);
        }
        s.push(e.delta);
        break;
      }
      case 'text-end':
        r.openText.get(e.blockId)?.end();
        r.openText.delete(e.blockId);
        break;
      case 'run-finish':
      case 'run-abort':
        for (const s of r.openText.values()) s.end();
        r.openText.clear();
        break;
    }
  }

  function itemsOfRun(r: RunState): TimelineItem[] {
    if (r.cachedVersion === r.acc.version) return r.cached;
    const m = r.acc.message;
    const id = m.id;
    const { parts, errors } = m.metadata;
    const live = m.metadata.status === 'streaming';
    const out: TimelineItem[] = [];
    const streamed = new Set<string>();
    for (const p of parts) if (p.type === 'reasoning' && p.variant === 'thinking') streamed.add(norm(p.text));
    for (const p of parts) {
      switch (p.type) {
        case 'reasoning': {
          if (!sendReasoning || p.text === '') break;
          const itemId = `${id}:${p.blockId}`;
          const timestamp = iso(p.startedAt);
          if (live && p.state === 'streaming')
            out.push({ type: 'ephemeral_message', id: itemId, messageType: p.variant, content: p.text, timestamp });
          else if (p.variant === 'processing') {
            const item: TimelineItem = { type: 'system_message', id: itemId, content: p.text, timestamp, kind: 'processing' };
            if (p.durationMs !== undefined) item.durationMs = p.durationMs;
            out.push(item);
          } else {
            const item: TimelineItem = { type: 'thinking', id: itemId, content: p.text, timestamp, source: 'stream' };
            if (p.durationMs !== undefined) item.durationMs = p.durationMs;
            out.push(item);
          }
          break;
        }
        case 'text': {
          const itemId = `${id}:${p.blockId}`;
          const timestamp = iso(p.startedAt);
          const split = r.splitters.get(`${p.blockId}@${p.seq}`)?.split ?? { content: p.text, thinking: [], open: false };
          split.thinking.forEach((t, i) => {
            const key = norm(t);
            if (!sendReasoning || key === '' || streamed.has(key)) return;
            streamed.add(key);
            out.push({ type: 'thinking', id: `${itemId}:think-${i}`, content: t.trim(), timestamp, source: 'tag' });
          });
          if (split.content.trim() === '') break;
          if (live && p.state === 'streaming')
            out.push({ type: 'ephemeral_message', id: itemId, messageType: 'agent_message', content: split.content, timestamp });
          else out.push({ type: 'agent_message', id: itemId, content: split.content, timestamp });
          break;
        }
        case 'tool':
          out.push(toolItem(id, p));
          break;
        default:
          break;
      }
    }
    for (const e of errors)
      out.push({ type: 'system_message', id: `${id}:error-${e.seq}`, content: e.message, timestamp: iso(e.ts), kind: 'error' });
    r.cached = out;
    r.cachedVersion = r.acc.version;
    return out;
  }

  return {
    apply,
    items() {
      // Later items replace earlier ones with the same id, in the earlier one's place.
      const out: TimelineItem[] = [];
      const at = new Map<string, number>();
      const put = (item: TimelineItem) => {
        const k = at.get(item.id);
        if (k === undefined) {
          at.set(item.id, out.length);
          out.push(item);
        } else out[k] = item;
      };
      for (const slot of slots) {
        if ('item' in slot) put(slot.item);
        else for (const item of itemsOfRun(slot.run)) put(item);
      }
      // A tag section equal to a streamed thinking block of the same message (one stored, one live) is dropped.
      const streamed = new Map<string, Set<string>>();
      for (const item of out) {
        if (item.type !== 'thinking' || item.source !== 'stream') continue;
        const message = messageOf(item.id);
        const set = streamed.get(message) ?? new Set<string>();
        set.add(norm(item.content));
        streamed.set(message, set);
      }
      return out.filter(
        (item) => !(item.type === 'thinking' && item.source === 'tag' && streamed.get(messageOf(item.id))?.has(norm(item.content))),
      );
    },
    get work() {
      return work;
    },
  };
}

/** The message part of an item id (`<messageId>:<block>…`). */
function messageOf(itemId: string): string {
  const colon = itemId.indexOf(':');
  return colon === -1 ? itemId : itemId.slice(0, colon);
}

function toolItem(messageId: string, p: ToolPart): TimelineItem {
  const call: ToolCallData = { id: p.toolCallId, name: p.toolName, input: undefined };
  // While the input streams, it is parsed only if the item's input is read.
  Object.defineProperty(call, 'input', {
    enumerable: true,
    configurable: true,
    get: () => p.input ?? p.inputText ?? (p.state === 'input-streaming' ? '' : undefined),
  });
  if (p.providerExecuted) call.providerExecuted = true;
  const item: Extract<TimelineItem, { type: 'tool_execution' }> = {
    type: 'tool_execution',
    id: `${messageId}:${p.toolCallId}`,
    call,
    timestamp: iso(p.startedAt),
  };
  if (p.state === 'output-available' || p.state === 'output-error') {
    const result: ToolResultData = { isError: p.state === 'output-error', timestamp: iso(p.endedAt ?? p.startedAt) };
    if (p.state === 'output-available') result.output = p.output ?? null;
    else result.error = p.errorText ?? 'error';
    item.result = result;
  }
  return item;
}

/**
 * Builds the timeline in one go.
 *
 * @example
 * // history from the server, the user's new message, then the live run
 * const items = buildThinkingTimeline([...stored, { type: 'user_message', id, content, timestamp }, ...events]);
 */
export function buildThinkingTimeline(inputs: Iterable<CanonicalEvent | TimelineItem>, options: TimelineOptions = {}): TimelineItem[] {
  const b = createTimelineBuilder(options);
  for (const input of inputs) b.apply(input);
  return b.items();
}
