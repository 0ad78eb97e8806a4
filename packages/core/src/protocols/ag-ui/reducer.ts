/**
 * A linear AG-UI reducer: AG-UI events → the messages and state `@ag-ui/client`'s apply step
 * (`defaultApplyEvents`) builds, without its per-event cost.
 *
 * The official step clones the whole message list after every event and finds messages and tool
 * calls by scanning the list, so a stream of N deltas costs O(N × size): 80,000 text deltas take
 * seconds. Here:
 * - messages and tool calls are found through id indexes (O(1));
 * - text, reasoning and tool arguments are chunk lists, joined only when the messages are read, and
 *   only the chunks since the previous read;
 * - reading `messages` rebuilds only the messages that changed (the others keep their identity);
 * - STATE_DELTA copies only the containers on the patched paths (copy-on-write JSON Patch with
 *   fast-json-patch's rules, see json-patch.ts), where the official step deep-clones the state.
 *
 * The result equals the official step's (tested on the recorded AG-UI traces and on our encoder's
 * output for every Anthropic capture, against `@ag-ui/client`'s real pipeline). Like
 * `defaultApplyEvents` it takes events after chunk expansion and verification (CHUNK events throw);
 * it has no subscribers: an application reacts to `version` / `messages` instead.
 */
import { applyJsonPatch, type JsonPatchOperation } from '../../transforms/json-patch.ts';
import { createWorkCounter, TextBuffer, type WorkCounter } from '../../transforms/text-buffer.ts';

/** One AG-UI event (loose: the reducer reads the fields it needs). */
export type AgUiEventLike = { type: string } & Record<string, unknown>;

/** An AG-UI tool call as messages carry it. */
export interface AgUiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  encryptedValue?: string;
  metadata?: Record<string, unknown>;
}

/** An AG-UI message (`@ag-ui/core` `Message`, loosely typed). */
export type AgUiMessageLike = {
  id: string;
  role: string;
  content?: unknown;
  toolCalls?: AgUiToolCall[];
  metadata?: Record<string, unknown>;
} & Record<string, unknown>;

export interface AgUiReducerOptions {
  /** The messages the agent starts with (the client's `agent.messages`). Copied. */
  messages?: readonly AgUiMessageLike[];
  /** The state it starts with. Copied. */
  state?: unknown;
  /** Where the warnings the official step prints go (default `console.warn`). */
  warn?: (message: string) => void;
  /** Counts string work (tests, benchmarks). */
  work?: WorkCounter;
}

export interface AgUiReducer {
  /** Applies one event. */
  apply(event: AgUiEventLike): void;
  /** Applies events in order. */
  applyAll(events: Iterable<AgUiEventLike>): this;
  /** The messages so far. A new array when anything changed; unchanged messages keep their identity. */
  readonly messages: AgUiMessageLike[];
  /** The state so far (immutable: a new object when it changed, unchanged parts shared). */
  readonly state: unknown;
  /** Increments on every event that changed messages or state. */
  readonly version: number;
  /** Tool calls of the current run that got no result yet (RUN_FINISHED's pending list). */
  readonly pendingToolCallIds: string[];
  readonly work: WorkCounter;
}

const clone = <T>(value: T): T => (value === null || typeof value !== 'object' ? value : structuredClone(value));

function mergeMetadata(existing: unknown, incoming: unknown): Record<string, unknown> {
  if (existing === undefined) return { ...(incoming as Record<string, unknown>) };
  return { ...(existing as Record<string, unknown>), ...(incoming as Record<string, unknown>) };
}

class ToolCallState {
  fields: Record<string, unknown>;
  fn: Record<string, unknown>;
  args: TextBuffer;
  dirty = true;
  snap: AgUiToolCall | undefined;
  constructor(tc: AgUiToolCall, work: WorkCounter) {
    const { function: fn, ...rest } = tc;
    const { arguments: args, ...fnRest } = (fn ?? {}) as { arguments?: unknown } & Record<string, unknown>;
    this.fields = rest;
    this.fn = fnRest;
    this.args = new TextBuffer(typeof args === 'string' ? args : '', work);
    if (typeof args !== 'string' && args !== undefined) this.fn.arguments = args;
  }
  build(): AgUiToolCall {
    const fn = 'arguments' in this.fn ? { ...this.fn } : { ...this.fn, arguments: this.args.toString() };
    return { ...this.fields, function: fn } as AgUiToolCall;
  }
  get id(): string {
    return this.fields.id as string;
  }
}

class MessageState {
  /** Every field except a string `content` (kept in `text`) and `toolCalls` (kept in `toolCalls`). */
  fields: Record<string, unknown>;
  text: TextBuffer | undefined;
  toolCalls: ToolCallState[] | undefined;
  /** First tool call with each id. */
  toolIndex: Map<string, ToolCallState> | undefined;
  dirty = true;
  snap: AgUiMessageLike | undefined;
  private readonly work: WorkCounter;
  constructor(message: AgUiMessageLike, work: WorkCounter) {
    this.work = work;
    const { content, toolCalls, ...rest } = message;
    this.fields = rest;
    if (typeof content === 'string') this.text = new TextBuffer(content, work);
    else if ('content' in message) this.fields.content = content;
    if (Array.isArray(toolCalls)) {
      this.ensureToolCalls();
      for (const tc of toolCalls) this.addToolCall(tc);
    } else if (toolCalls !== undefined) this.fields.toolCalls = toolCalls;
  }
  get id(): string {
    return this.fields.id as string;
  }
  get role(): string {
    return this.fields.role as string;
  }
  ensureToolCalls(): ToolCallState[] {
    if (!this.toolCalls) {
      this.toolCalls = [];
      this.toolIndex = new Map();
      delete this.fields.toolCalls;
    }
    return this.toolCalls;
  }
  addToolCall(tc: AgUiToolCall): ToolCallState {
    const list = this.ensureToolCalls();
    const s = new ToolCallState(tc, this.work);
    list.push(s);
    if (!this.toolIndex?.has(s.id)) this.toolIndex?.set(s.id, s);
    return s;
  }
  /** Appends to the string content (a non-string content is replaced, as the official step does). */
  appendContent(delta: string): void {
    if (!this.text) {
      this.text = new TextBuffer('', this.work);
      delete this.fields.content;
    }
    this.text.append(delta);
  }
  build(): AgUiMessageLike {
    const m = { ...this.fields } as AgUiMessageLike;
    if (this.text) m.content = this.text.toString();
    if (this.toolCalls) {
      m.toolCalls = this.toolCalls.map((tc) => {
        if (tc.dirty || !tc.snap) {
          tc.snap = tc.build();
          tc.dirty = false;
        }
        return tc.snap;
      });
    }
    return m;
  }
}

/** `authoritativeActivityTypes` of `@ag-ui/client` (which activity types a snapshot owns). */
function authoritativeActivityTypes(event: AgUiEventLike): string[] | null | undefined {
  const metadata = event.metadata as Record<string, unknown> | undefined;
  if (!metadata || !Object.hasOwn(metadata, '@ag-ui/client')) return undefined;
  const value = metadata['@ag-ui/client'];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  if (!Object.hasOwn(value, 'authoritativeActivityTypes')) return undefined;
  const types = (value as Record<string, unknown>).authoritativeActivityTypes;
  if (types === null) return null;
  return Array.isArray(types) && types.every((t): t is string => typeof t === 'string') ? types : [];
}

function withoutNullSubagent(m: AgUiMessageLike): AgUiMessageLike {
  if (m.subagentRunId !== null) return m;
  const copy = { ...m };
  delete copy.subagentRunId;
  return copy;
}

/**
 * The message an ACTIVITY_SNAPSHOT leaves at `existing`'s place: a new activity message, the
 * existing activity with the new type and content (`replace`, the default), the existing one kept
 * (`replace: false`), or undefined (a non-activity message that is not replaced).
 */
function activitySnapshot(event: AgUiEventLike, existing: MessageState | undefined, work: WorkCounter): MessageState | undefined {
  const replace = (event.replace as boolean | undefined) ?? true;
  if (existing?.role === 'activity') {
    if (!replace) return existing;
    const fields = {
      ...existing.fields,
      activityType: event.activityType,
      content: clone(event.content),
      subagentRunId: event.subagentRunId,
    };
    if (event.subagentRunId == null) delete fields.subagentRunId;
    return new MessageState(fields as unknown as AgUiMessageLike, work);
  }
  if (existing && !replace) return undefined;
  const activity: AgUiMessageLike = {
    id: event.messageId as string,
    role: 'activity',
    activityType: event.activityType as string,
    content: clone(event.content),
  };
  if (event.subagentRunId != null) activity.subagentRunId = event.subagentRunId;
  return new MessageState(activity, work);
}

/** The messages as read: each changed message rebuilt, the others as they were last read. */
function snapshotOf(list: readonly MessageState[]): AgUiMessageLike[] {
  const out: AgUiMessageLike[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    if (s.dirty || !s.snap) {
      s.snap = s.build();
      s.dirty = false;
    }
    out[i] = s.snap;
  }
  return out;
}

/**
 * Creates an AG-UI reducer.
 *
 * @example
 * const reducer = createAgUiReducer({ messages: history });
 * for await (const event of readValues(response)) reducer.apply(event as AgUiEventLike);
 * render(reducer.messages, reducer.state);
 */
export function createAgUiReducer(options: AgUiReducerOptions = {}): AgUiReducer {
  const work = options.work ?? createWorkCounter();
  const warn = options.warn ?? ((message: string) => console.warn(message));
  let list: MessageState[] = (options.messages ?? []).map((m) => new MessageState(clone(m), work));
  let state: unknown = clone(options.state === undefined ? {} : options.state);
  /**
   * The state as the agent shows it. The official step only publishes a defined state, so a patch
   * whose result is undefined (e.g. a root `copy` from a missing path) leaves the visible state as it
   * was while later patches apply to the undefined one; both are kept to match.
   */
  let shown: unknown = state;
  let version = 0;
  // Indexes. A list per key: ids are meant to be unique; when one is not, the array order decides.
  let byId = new Map<string, MessageState[]>();
  let byToolCall = new Map<string, MessageState[]>();
  /** Set when the array may hold one message twice (a snapshot with a repeated id); lookups then scan. */
  let aliased = false;
  let changed = true;
  /** Set by anything that changes messages or state during one `apply`. */
  let mutated = false;
  let snapshot: AgUiMessageLike[] = [];
  let runToolCallIds: string[] = [];
  let answered = new Set<string>();

  function index(s: MessageState): void {
    const ids = byId.get(s.id);
    if (ids) ids.push(s);
    else byId.set(s.id, [s]);
    if (s.toolCalls) for (const tc of s.toolCalls) indexToolCall(s, tc.id);
  }
  function indexToolCall(s: MessageState, id: string): void {
    const owners = byToolCall.get(id);
    if (!owners) byToolCall.set(id, [s]);
    else if (!owners.includes(s)) owners.push(s);
  }
  function reindex(): void {
    byId = new Map();
    byToolCall = new Map();
    const seen = new Set<MessageState>();
    aliased = false;
    for (const s of list) {
      if (seen.has(s)) {
        aliased = true;
        continue;
      }
      seen.add(s);
      index(s);
    }
  }
  reindex();

  /** The first message with this id, in array order. */
  function find(id: string): MessageState | undefined {
    const found = byId.get(id);
    if (!found) return undefined;
    if (found.length === 1 && !aliased) return found[0];
    return list.find((s) => s.id === id);
  }
  /** The first message holding a tool call with this id, in array order (optionally assistants only). */
  function owner(toolCallId: string, assistantOnly = false): MessageState | undefined {
    const found = byToolCall.get(toolCallId);
    if (!found) return undefined;
    if (found.length === 1 && !aliased) return !assistantOnly || found[0].role === 'assistant' ? found[0] : undefined;
    return list.find((s) => (!assistantOnly || s.role === 'assistant') && s.toolIndex?.has(toolCallId));
  }
  function push(s: MessageState): void {
    list.push(s);
    index(s);
  }
  function touch(s: MessageState): void {
    s.dirty = true;
    changed = true;
    mutated = true;
  }
  function mergeInto(target: { fields: Record<string, unknown> }, event: AgUiEventLike): boolean {
    if (event.metadata === undefined) return false;
    target.fields.metadata = mergeMetadata(target.fields.metadata, clone(event.metadata));
    return true;
  }

  function textLike(event: AgUiEventLike, kind: 'TEXT_MESSAGE' | 'REASONING_MESSAGE'): void {
    const messageId = event.messageId as string;
    const phase = event.type.slice(kind.length + 1);
    if (phase === 'START') {
      const existing = find(messageId);
      if (existing?.role === 'activity') {
        warn(`${event.type}: Message '${messageId}' is an activity message`);
        return;
      }
      let target = existing;
      if (!target) {
        const m: AgUiMessageLike =
          kind === 'TEXT_MESSAGE'
            ? { id: messageId, role: (event.role as string | undefined) ?? 'assistant', content: '' }
            : { id: messageId, role: 'reasoning', content: '' };
        if (kind === 'TEXT_MESSAGE' && event.name !== undefined) m.name = event.name;
        if (event.subagentRunId != null) m.subagentRunId = event.subagentRunId;
        target = new MessageState(m, work);
        push(target);
      }
      if (mergeInto(target, event) || !existing) touch(target);
      return;
    }
    const target = find(messageId);
    if (!target) {
      warn(`${event.type}: No message found with ID '${messageId}'`);
      return;
    }
    if (target.role === 'activity') {
      warn(`${event.type}: Message '${messageId}' is an activity message`);
      return;
    }
    if (phase === 'CONTENT') {
      target.appendContent(String(event.delta));
      mergeInto(target, event);
      touch(target);
      return;
    }
    // END
    if (mergeInto(target, event)) touch(target);
  }

  function apply(event: AgUiEventLike): void {
    mutated = false;
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_END':
        textLike(event, 'TEXT_MESSAGE');
        break;
      case 'REASONING_MESSAGE_START':
      case 'REASONING_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_END':
        textLike(event, 'REASONING_MESSAGE');
        break;
      case 'TOOL_CALL_START': {
        const toolCallId = event.toolCallId as string;
        const toolCallName = event.toolCallName as string;
        if (!runToolCallIds.includes(toolCallId)) runToolCallIds.push(toolCallId);
        const existingOwner = owner(toolCallId);
        const existing = existingOwner?.toolIndex?.get(toolCallId);
        if (existingOwner && existing) {
          const renamed = existing.fn.name !== toolCallName;
          if (renamed) {
            warn(
              `TOOL_CALL_START: tool call '${toolCallId}' already exists with name '${existing.fn.name}' — updating it to '${toolCallName}'`,
            );
            existing.fn.name = toolCallName;
          }
          if (mergeInto(existing, event) || renamed) {
            existing.dirty = true;
            touch(existingOwner);
          }
          break;
        }
        const parentMessageId = event.parentMessageId as string | undefined;
        let target: MessageState | undefined;
        let created = false;
        if (parentMessageId) {
          const parent = find(parentMessageId);
          if (parent?.role === 'assistant') target = parent;
          else {
            if (parent)
              warn(
                `TOOL_CALL_START: parentMessageId '${parentMessageId}' matches a '${parent.role}' message, not assistant — falling back to toolCallId`,
              );
            const id = parent ? toolCallId : parentMessageId;
            created = !byId.has(id);
            target = new MessageState({ id, role: 'assistant', toolCalls: [] }, work);
            push(target);
          }
        } else {
          created = !byId.has(toolCallId);
          target = new MessageState({ id: toolCallId, role: 'assistant', toolCalls: [] }, work);
          push(target);
        }
        if (created && event.subagentRunId != null && target.fields.subagentRunId === undefined)
          target.fields.subagentRunId = event.subagentRunId;
        const tc = target.addToolCall({ id: toolCallId, type: 'function', function: { name: toolCallName, arguments: '' } });
        indexToolCall(target, toolCallId);
        mergeInto(tc, event);
        touch(target);
        break;
      }
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_END': {
        const toolCallId = event.toolCallId as string;
        const target = owner(toolCallId);
        const tc = target?.toolIndex?.get(toolCallId);
        if (!target || !tc) {
          warn(`${event.type}: No message found containing tool call with ID '${toolCallId}'`);
          break;
        }
        if (event.type === 'TOOL_CALL_ARGS') {
          tc.args.append(String(event.delta));
          mergeInto(tc, event);
          tc.dirty = true;
          touch(target);
        } else if (mergeInto(tc, event)) {
          tc.dirty = true;
          touch(target);
        }
        break;
      }
      case 'TOOL_CALL_RESULT': {
        const toolCallId = event.toolCallId as string;
        answered.add(toolCallId);
        const m: AgUiMessageLike = {
          id: event.messageId as string,
          toolCallId,
          role: (event.role as string | undefined) || 'tool',
          content: clone(event.content),
        };
        if (event.subagentRunId != null) m.subagentRunId = event.subagentRunId;
        const s = new MessageState(m, work);
        mergeInto(s, event);
        const ownerMessage = owner(toolCallId, true);
        if (!ownerMessage) push(s);
        else {
          let at = aliased ? list.indexOf(ownerMessage) : list.lastIndexOf(ownerMessage);
          at++;
          while (at < list.length && list[at].role === 'tool') at++;
          list.splice(at, 0, s);
          index(s);
        }
        touch(s);
        break;
      }
      case 'STATE_SNAPSHOT':
        state = clone(event.snapshot);
        if (state !== undefined) shown = state;
        mutated = true;
        break;
      case 'STATE_DELTA':
        try {
          // fast-json-patch deep-clones the document first, which turns undefined into null.
          state = applyJsonPatch(state === undefined ? null : state, event.delta as JsonPatchOperation[]);
          if (state !== undefined) shown = state;
          mutated = true;
        } catch (err) {
          warn(
            `Failed to apply state patch:\nCurrent state: ${JSON.stringify(state, null, 2)}\nPatch operations: ${JSON.stringify(event.delta, null, 2)}\nError: ${(err as Error).message}`,
          );
        }
        break;
      case 'MESSAGES_SNAPSHOT': {
        const incoming = ((event.messages as AgUiMessageLike[] | undefined) ?? []).map(withoutNullSubagent);
        const fresh = incoming.map((m) => new MessageState(clone(m), work));
        const states = new Map<string, MessageState>();
        for (const s of fresh) states.set(s.id, s);
        const owned = authoritativeActivityTypes(event);
        const hasActivity = incoming.some((m) => m.role === 'activity');
        const hasReasoning = incoming.some((m) => m.role === 'reasoning');
        const preserved = (s: MessageState) =>
          (s.role === 'activity' && (owned ? !owned.includes(s.fields.activityType as string) : owned !== null && !hasActivity)) ||
          (s.role === 'reasoning' && !hasReasoning);
        const next: MessageState[] = [];
        for (const s of list) if (states.has(s.id) || preserved(s)) next.push(states.get(s.id) ?? s);
        const present = new Set(next.map((s) => s.id));
        for (const s of fresh) if (!present.has(s.id)) next.push(s);
        list = next;
        reindex();
        changed = true;
        mutated = true;
        break;
      }
      case 'ACTIVITY_SNAPSHOT': {
        const messageId = event.messageId as string;
        const existing = find(messageId);
        const at = existing ? (aliased ? list.indexOf(existing) : list.lastIndexOf(existing)) : -1;
        const target = activitySnapshot(event, existing, work);
        if (!existing && target) push(target);
        else if (existing && target && target !== existing) replaceAt(at, existing, target);
        if (target) mergeInto(target, event);
        changed = true;
        mutated = true;
        if (target) touch(target);
        break;
      }
      case 'ACTIVITY_DELTA': {
        const messageId = event.messageId as string;
        const existing = find(messageId);
        if (!existing) break;
        if (existing.role !== 'activity') {
          warn(`ACTIVITY_DELTA: Message '${messageId}' is not an activity message`);
          break;
        }
        if (mergeInto(existing, event)) touch(existing);
        try {
          const content = applyJsonPatch(existing.fields.content ?? {}, (event.patch as JsonPatchOperation[] | undefined) ?? []);
          const at = aliased ? list.indexOf(existing) : list.lastIndexOf(existing);
          const next = new MessageState(
            { ...existing.fields, content, activityType: event.activityType } as unknown as AgUiMessageLike,
            work,
          );
          replaceAt(at, existing, next);
          touch(next);
        } catch (err) {
          warn(`Failed to apply activity patch for '${messageId}': ${(err as Error).message}`);
        }
        break;
      }
      case 'REASONING_ENCRYPTED_VALUE': {
        const entityId = event.entityId as string;
        if (event.subtype === 'tool-call') {
          const target = owner(entityId, true);
          const tc = target?.toolIndex?.get(entityId);
          if (target && tc) {
            tc.fields.encryptedValue = event.encryptedValue;
            tc.dirty = true;
            touch(target);
          }
        } else {
          const target = find(entityId);
          if (target && target.role !== 'activity') {
            target.fields.encryptedValue = event.encryptedValue;
            touch(target);
          }
        }
        break;
      }
      case 'RUN_STARTED': {
        runToolCallIds = [];
        answered = new Set();
        const input = event.input as { messages?: AgUiMessageLike[] } | undefined;
        if (input?.messages) {
          for (const raw of input.messages) {
            const m = withoutNullSubagent(raw);
            if (!byId.has(m.id)) push(new MessageState(clone(m), work));
          }
          changed = true;
          mutated = true;
        }
        break;
      }
      case 'TEXT_MESSAGE_CHUNK':
      case 'TOOL_CALL_CHUNK':
      case 'REASONING_MESSAGE_CHUNK':
        throw new Error(`${event.type} must be transformed before being applied`);
      default:
        // RUN_FINISHED, RUN_ERROR, STEP_*, REASONING_START / END, SUBAGENT_*, RAW, CUSTOM: nothing to apply.
        break;
    }
    if (mutated) version++;
  }

  /** Puts `next` where `old` was (at `at`), keeping the indexes right without rebuilding them. */
  function replaceAt(at: number, old: MessageState, next: MessageState): void {
    if (at >= 0) list[at] = next;
    else list.push(next);
    if (old === next) return;
    if (old.toolCalls?.length || next.toolCalls?.length || aliased) {
      reindex();
      return;
    }
    const ids = byId.get(old.id);
    if (ids) {
      const k = ids.indexOf(old);
      if (k >= 0) ids.splice(k, 1);
      if (ids.length === 0) byId.delete(old.id);
    }
    const same = byId.get(next.id);
    if (same) {
      same.push(next);
      // Keep array order in the list: resolve by scanning when the id is shared.
    } else byId.set(next.id, [next]);
    changed = true;
  }

  function applyAll(events: Iterable<AgUiEventLike>): AgUiReducer {
    for (const e of events) apply(e);
    return reducer;
  }

  const reducer: AgUiReducer = {
    apply,
    applyAll,
    get messages() {
      if (changed) {
        snapshot = snapshotOf(list);
        changed = false;
      }
      return snapshot;
    },
    get state() {
      return shown;
    },
    get version() {
      return version;
    },
    get pendingToolCallIds() {
      return runToolCallIds.filter((id) => !answered.has(id));
    },
    get work() {
      return work;
    },
  };
  return reducer;
}
