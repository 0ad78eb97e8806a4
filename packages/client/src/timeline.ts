/**
 * The thinking timeline, live: canonical events (and stored timeline items) → the ordered items a
 * chat renders — `thinking`, `agent_message`, `user_message`, `tool_execution`, `system_message`
 * (processing blocks, errors) and `ephemeral_message` (blocks still streaming).
 *
 * Each run is core's message fold (`createMessageFold`, with a receipt clock) read through core's
 * timeline view (`createTimelineView`): the items and ids of the store's
 * `GET /api/chats/:id/messages?protocol=timeline` (core's `toTimeline`), so a reloaded history and a
 * live stream merge: items are deduplicated by id (a later one replaces an earlier one in place — the
 * live stream over the stored copy of the same message).
 *
 * Thinking arrives two ways: streamed reasoning blocks, and `<think>` tags inside the text of models
 * that write their reasoning into the answer. The view splits tags as the text grows; a tag section
 * whose text equals a streamed thinking block of the same message is dropped — the streamed one wins.
 *
 * Incremental: `apply(event)` is one fold step; `items()` snapshots the runs (unchanged parts shared)
 * and splits only the text that arrived since.
 */
import {
  type CanonicalEvent,
  createMessageFold,
  createTimelineView,
  createWorkCounter,
  type MessageFold,
  type TimelineItem,
  type TimelineView,
  type WorkCounter,
} from '@switchboard/core';

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
  /** The receipt clock (ms) the fold stamps `receivedAt` with (default `Date.now`). */
  clock?: () => number;
}

export interface TimelineBuilder {
  /** Applies a canonical event (of any run) or a timeline item (a stored one, a user message just sent). */
  apply(input: CanonicalEvent | TimelineItem): void;
  /** The timeline so far. */
  items(): TimelineItem[];
  readonly work: WorkCounter;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** One run: the message fold and its timeline view. */
interface RunState {
  fold: MessageFold;
  view: TimelineView;
}

/** One position of the timeline: a stored / given item, or a run (its items expand there). */
type Slot = { item: TimelineItem } | { run: RunState };

/** Creates an incremental timeline builder. */
export function createTimelineBuilder(options: TimelineOptions = {}): TimelineBuilder {
  const work = options.work ?? createWorkCounter();
  const viewOptions = { work, ...(options.sendReasoning !== undefined ? { sendReasoning: options.sendReasoning } : {}) };
  const clock = options.clock ?? Date.now;
  const slots: Slot[] = [];
  const runs = new Map<string, RunState>();

  function runOf(runId: string): RunState {
    let r = runs.get(runId);
    if (!r) {
      r = { fold: createMessageFold({ clock, work }), view: createTimelineView(viewOptions) };
      runs.set(runId, r);
      slots.push({ run: r });
    }
    return r;
  }

  function apply(input: CanonicalEvent | TimelineItem): void {
    if (isTimelineItem(input)) slots.push({ item: input });
    else runOf(input.runId).fold.push(input);
  }

  const itemsOfRun = (r: RunState): TimelineItem[] => r.view.view(r.fold.snapshot());

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
