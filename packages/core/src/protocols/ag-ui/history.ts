/**
 * The stored assistant message → AG-UI history: the messages of a `MESSAGES_SNAPSHOT` (`user`,
 * `assistant` with `toolCalls`, `tool`, `reasoning`), segmented like the AG-UI encoder does it live, and
 * the agent state the run's `STATE_SNAPSHOT` / `STATE_DELTA` events left (what an `HttpAgent`'s
 * `agent.state` was). Pure: built from the folded message alone, never by re-encoding a run's events.
 */
import type { HistoryOptions } from '../../message/history-options.ts';
import type { AssistantMessage, MessagePart, PersistedMessage, ToolPart } from '../../message/types.ts';
import type { Json, JsonObject } from '../../model/events.ts';
import { encryptedReasoningOf } from '../../model/metadata.ts';
import { applyJsonPatch } from '../../transforms/json-patch.ts';
import type { AgUiMessageLike } from './reducer.ts';

/** A call's arguments as the model produced them: the streamed text when there was one, else the input as JSON. */
function toolArguments(p: ToolPart): string {
  if (p.inputText !== undefined) return p.inputText;
  if (p.inputError !== undefined && typeof p.input === 'string') return p.input;
  if (p.input === undefined) return '';
  return JSON.stringify(p.input);
}

/**
 * A call's metadata as the client keeps it (the last of TOOL_CALL_START / ARGS / END that carried
 * any): END's (providerExecuted, inputError, provider metadata) when it had some, else the
 * whole-input ARGS's (`whole`), else none.
 */
function toolCallMetadata(p: ToolPart): JsonObject {
  const end: JsonObject = {};
  if (p.providerExecuted !== undefined) end.providerExecuted = p.providerExecuted;
  if (p.inputError !== undefined) end.inputError = p.inputError;
  if (p.callProviderMetadata) end.providerMetadata = p.callProviderMetadata;
  if (Object.keys(end).length > 0) return end;
  return p.inputText === undefined && toolArguments(p) !== '' ? { whole: true } : {};
}

/** A tool result's metadata as TOOL_CALL_RESULT carries it. */
function toolResultMetadata(p: ToolPart, isError: boolean): JsonObject {
  const out: JsonObject = isError ? { error: true, toolName: p.toolName } : { toolName: p.toolName };
  if (!isError && typeof p.output !== 'string') out.json = true;
  if (p.providerExecuted !== undefined) out.providerExecuted = p.providerExecuted;
  if (p.resultProviderMetadata) out.providerMetadata = p.resultProviderMetadata;
  return out;
}

/**
 * One assistant message → AG-UI messages, segmented like the AG-UI encoder does it live: text and
 * tool calls go to an assistant message (id = the message id, then `<id>-<n>`), a new one after an
 * explicit step boundary or the result of a tool the client side ran (one message per provider
 * response); each reasoning block with text (or an encrypted value) is a `reasoning` message; each tool
 * result a `tool` message right after the assistant message that made the call.
 */
export function agUiOfAssistant(m: AssistantMessage, ns: string, sendReasoning: boolean): AgUiMessageLike[] {
  const base = m.id;
  const list: AgUiMessageLike[] = [];
  let used = new Set<string>();
  const unique = (id: string) => {
    let out = id;
    for (let k = 2; used.has(out); k++) out = `${id}~${k}`;
    used.add(out);
    return out;
  };
  const scoped = (id: string) => unique(id.startsWith(`${base}:`) ? id : `${base}:${id}`);
  let count = 0;
  const current = new Map<string | undefined, AgUiMessageLike>();
  const ownerOfCall = new Map<string, AgUiMessageLike>();
  /** seq at which the last text block put in a message closed. */
  const textUntil = new Map<AgUiMessageLike, number>();

  /** Assistant messages by id: a continuation run may name one the client has already (it adds to it). */
  const assistants = new Map<string, AgUiMessageLike>();
  const runStarts = (m.metadata.runSeqs ?? []).slice(1);

  const assistantFor = (owner: string | undefined): AgUiMessageLike => {
    let msg = current.get(owner);
    if (!msg) {
      let id: string;
      do {
        count++;
        id = count === 1 ? base : `${base}-${count}`;
      } while (used.has(id));
      used.add(id);
      msg = assistants.get(id);
      if (!msg) {
        msg = { id, role: 'assistant' };
        if (owner !== undefined) msg.subagentRunId = owner;
        list.push(msg);
        assistants.set(id, msg);
      }
      current.set(owner, msg);
    }
    return msg;
  };

  // Parts in event order, with each tool result at the position of its output event.
  type Item = { at: number; part: MessagePart; result: boolean };
  const items: Item[] = [];
  for (const p of m.metadata.parts) {
    items.push({ at: p.seq, part: p, result: false });
    if (p.type === 'tool' && p.outputSeq !== undefined && p.inputError === undefined)
      items.push({ at: p.outputSeq, part: p, result: true });
  }
  items.sort((a, b) => a.at - b.at);

  for (const { at, part: p, result } of items) {
    if (runStarts.length > 0 && at >= runStarts[0]) {
      // A continuation run, encoded on its own: it counts its message ids again, past the message id
      // (which the client has), as the AG-UI encoder does for a run that starts with answers.
      while (runStarts.length > 0 && at >= runStarts[0]) runStarts.shift();
      count = 0;
      current.clear();
      used = new Set([base]);
    }
    const owner = p.subagentId;
    switch (p.type) {
      case 'step-start':
        if (p.stepId !== undefined) current.delete(owner);
        break;
      case 'reasoning': {
        // As the encoder: a block with nothing to show is no message, and it does not end the assistant message.
        const encrypted = encryptedReasoningOf(p.providerMetadata);
        if (!sendReasoning || (p.text === '' && encrypted === undefined)) break;
        const msg: AgUiMessageLike = { id: scoped(p.blockId), role: 'reasoning', content: p.text };
        if (encrypted !== undefined) msg.encryptedValue = encrypted;
        // The client keeps the last event's metadata: REASONING_MESSAGE_END's when the block closed with a
        // signature (variant and provider metadata), else REASONING_MESSAGE_START's (block id and variant).
        const ours: JsonObject = encrypted !== undefined ? { variant: p.variant } : { blockId: p.blockId, variant: p.variant };
        if (p.providerMetadata) ours.providerMetadata = p.providerMetadata;
        msg.metadata = { [ns]: ours };
        if (owner !== undefined) msg.subagentRunId = owner;
        list.push(msg);
        break;
      }
      case 'text': {
        const msg = assistantFor(owner);
        if ((textUntil.get(msg) ?? -1) > p.seq) {
          // Two text blocks open at once (n > 1 choices) cannot share a message.
          const own: AgUiMessageLike = { id: scoped(p.blockId), role: 'assistant', content: p.text };
          if (owner !== undefined) own.subagentRunId = owner;
          list.push(own);
          break;
        }
        msg.content = `${(msg.content as string | undefined) ?? ''}${p.text}`;
        // As TEXT_MESSAGE_START / END left it: the last text block's id and provider metadata.
        const ours: JsonObject = p.providerMetadata ? { providerMetadata: p.providerMetadata } : { blockId: p.blockId };
        msg.metadata = { [ns]: ours };
        textUntil.set(msg, p.endSeq ?? Number.POSITIVE_INFINITY);
        break;
      }
      case 'tool': {
        if (!result) {
          const msg = assistantFor(owner);
          const call: JsonObject = { id: p.toolCallId, type: 'function', function: { name: p.toolName, arguments: toolArguments(p) } };
          const ours = toolCallMetadata(p);
          // The approval (asked, answered, denied): AG-UI messages have no state for it, so it is ours.
          if (p.approval) ours.approval = { ...p.approval, state: p.state };
          if (Object.keys(ours).length > 0) call.metadata = { [ns]: ours };
          msg.toolCalls ??= [];
          (msg.toolCalls as unknown as JsonObject[]).push(call);
          ownerOfCall.set(p.toolCallId, msg);
          break;
        }
        const isError = p.state === 'output-error';
        const content = isError ? (p.errorText ?? 'error') : typeof p.output === 'string' ? p.output : JSON.stringify(p.output ?? null);
        // A client tool's result keeps the id of the client's own tool message (continuation.ts in the server).
        const own = p.resultProviderMetadata?.[ns]?.messageId;
        const id = typeof own === 'string' ? unique(own) : unique(`${base}:${p.toolCallId}:result`);
        const msg: AgUiMessageLike = { id, role: 'tool', toolCallId: p.toolCallId, content };
        if (isError) msg.error = p.errorText ?? 'error';
        msg.metadata = { [ns]: toolResultMetadata(p, isError) };
        if (owner !== undefined) msg.subagentRunId = owner;
        const at = list.indexOf(ownerOfCall.get(p.toolCallId) as AgUiMessageLike);
        if (at === -1) list.push(msg);
        else {
          let i = at + 1;
          while (i < list.length && list[i].role === 'tool') i++;
          list.splice(i, 0, msg);
        }
        if (!p.providerExecuted) current.delete(owner);
        break;
      }
      default:
        break;
    }
  }
  return list;
}

/** Stored messages → AG-UI messages (what a `MESSAGES_SNAPSHOT` carries). */
export function toAgUiMessages(messages: readonly PersistedMessage[], options: HistoryOptions = {}): AgUiMessageLike[] {
  const ns = options.namespace ?? 'switchboard';
  const out: AgUiMessageLike[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') out.push(...agUiOfAssistant(m, ns, options.sendReasoning ?? true));
    else out.push({ id: m.id, role: m.role, content: m.content });
  }
  return out;
}

/**
 * The agent state after one assistant message, as an `HttpAgent` holds it once the run streamed:
 * `before` (the state the chat held), replaced by the run's last state snapshot, with the deltas
 * it sent applied (a delta that does not apply is skipped, as the client skips it), and the todo
 * list under `todos` (the encoder sends todos as a `/todos` member of the state).
 */
export function agUiStateOf(m: AssistantMessage, before: Json = {}): Json {
  const { state, stateDeltas, todos } = m.metadata;
  let after = state !== undefined ? state : before;
  for (const patch of stateDeltas ?? []) {
    try {
      after = applyJsonPatch(after, patch) as Json;
    } catch {
      // Skipped: the client logs it and keeps its state.
    }
  }
  if (todos === undefined) return after;
  const base = after !== null && typeof after === 'object' && !Array.isArray(after) ? after : {};
  return { ...base, todos: todos as unknown as Json };
}

/** A chat's AG-UI history: the messages and the agent state, the last one a run left. */
export interface AgUiHistory {
  messages: AgUiMessageLike[];
  /** What `STATE_SNAPSHOT` / `STATE_DELTA` left live (`{}` when no run sent state, as `HttpAgent` starts). */
  state: Json;
}

/** Options of `toAgUiHistory`. */
export interface AgUiHistoryOptions extends HistoryOptions {
  /**
   * Ids of the answers a regenerate replaced: left out of the messages, but their state changes are
   * kept, in order (an `HttpAgent` keeps its state across a regenerate: the state is the agent's,
   * not the branch's).
   */
  superseded?: ReadonlySet<string>;
}

/** Stored messages → AG-UI history: `MESSAGES_SNAPSHOT` messages and the state `STATE_SNAPSHOT` / `STATE_DELTA` left. */
export function toAgUiHistory(messages: readonly PersistedMessage[], options: AgUiHistoryOptions = {}): AgUiHistory {
  const { superseded, ...rest } = options;
  let state: Json = {};
  for (const m of messages) if (m.role === 'assistant') state = agUiStateOf(m, state);
  const shown = superseded?.size ? messages.filter((m) => !superseded.has(m.id)) : messages;
  return { messages: toAgUiMessages(shown, rest), state };
}
