/**
 * What AG-UI opens and closes — text messages, tool calls, reasoning spans and reasoning messages —
 * as one table of START / CONTENT / END families with the same rules (a table-driven span tracker),
 * plus the canonical blocks each one opens and closes, and closing everything still open.
 */

import { isObject } from '../../inputs/decoder.ts';
import type { Json, JsonObject, Location } from '../../model/events.ts';
import { type Ev, type Owner, type ReadState, type ReasoningState, str, type TextState, type ToolState } from './read-state.ts';

/** Our encoder's fields of an event (`metadata[namespace]`), when it carries them. */
type Meta = Record<string, unknown> | undefined;

/** One START / CONTENT / END family: how its id is found, and what opening, content and closing do. */
interface SpanKind<S> {
  /** In words, for errors: `text message`, `tool call`, … */
  label: string;
  idField: 'messageId' | 'toolCallId';
  start: string;
  content?: string;
  end: string;
  /** The START a CONTENT without one stands for (it is opened with it). */
  implied?: (id: string, owner: Owner) => Ev;
  /** Added to the error of such a CONTENT. */
  impliedNote?: string;
  get(id: string): S | undefined;
  open(ev: Ev, m: Meta, where: Location | undefined): S;
  append?(state: S, ev: Ev, m: Meta, where: Location | undefined): void;
  close(id: string, state: S, ev: Ev | undefined, m: Meta, where?: Location): void;
}

const kind = <S>(k: SpanKind<S>): SpanKind<unknown> => k as SpanKind<unknown>;

/** The span tracker of one reader. */
export type Spans = ReturnType<typeof createSpans>;

/** Creates the span tracker over a reader's state. */
export function createSpans(s: ReadState) {
  const {
    texts,
    openBlocks,
    reasonings,
    spans,
    tools,
    toolNames,
    runCalls,
    steps,
    subagents,
    blockIds,
    lanes,
    emit,
    sequenceError,
    unique,
    extras,
    pmOf,
    rawExtras,
  } = s;

  function openText(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): TextState {
    const id = ev.messageId as string;
    const owner = str(ev.subagentRunId);
    const role = str(ev.role) ?? 'assistant';
    if (role !== 'assistant') {
      const t: TextState = { blockId: id, owner, side: { role, name: str(ev.name), parts: [] } };
      texts.set(id, t);
      rawExtras(ev, extras(ev, ['messageId', 'role', 'name']), where, owner);
      return t;
    }
    const blockId = unique(blockIds, str(m?.blockId) ?? id);
    const t: TextState = { blockId, owner };
    texts.set(id, t);
    openBlocks.add(blockId);
    emit({ type: 'text-start', blockId, subagentId: owner, providerMetadata: pmOf(m, extras(ev, ['messageId', 'role'])) });
    return t;
  }

  function closeText(id: string, t: TextState, ev: Ev | undefined, m: Record<string, unknown> | undefined, where?: Location): void {
    texts.delete(id);
    const x = ev ? extras(ev, ['messageId']) : undefined;
    if (t.side) {
      const value: JsonObject = { messageId: id, role: t.side.role, content: t.side.parts.join('') };
      if (t.side.name !== undefined) value.name = t.side.name;
      emit({ type: 'custom', name: 'ag-ui.text-message', value, subagentId: t.owner });
      if (ev) rawExtras(ev, x, where, t.owner);
      return;
    }
    openBlocks.delete(t.blockId);
    emit({ type: 'text-end', blockId: t.blockId, subagentId: t.owner, providerMetadata: pmOf(m, x) });
  }

  function openReasoning(ev: Ev, m: Record<string, unknown> | undefined): ReasoningState {
    const id = ev.messageId as string;
    const owner = str(ev.subagentRunId);
    const blockId = unique(blockIds, str(m?.blockId) ?? id);
    const r: ReasoningState = { blockId, owner };
    reasonings.set(id, r);
    openBlocks.add(blockId);
    const variant = m?.variant === 'processing' ? 'processing' : 'thinking';
    emit({ type: 'reasoning-start', blockId, variant, subagentId: owner, providerMetadata: pmOf(m, extras(ev, ['messageId', 'role'])) });
    return r;
  }

  function closeReasoning(id: string, r: ReasoningState, ev: Ev | undefined, m: Record<string, unknown> | undefined): void {
    reasonings.delete(id);
    openBlocks.delete(r.blockId);
    let x = ev ? extras(ev, ['messageId']) : undefined;
    if (r.encrypted !== undefined && !isObject(m?.providerMetadata)) x = { ...x, encryptedValue: r.encrypted };
    emit({ type: 'reasoning-end', blockId: r.blockId, subagentId: r.owner, providerMetadata: pmOf(m, x) });
  }

  function openTool(ev: Ev, m: Record<string, unknown> | undefined): ToolState {
    const id = ev.toolCallId as string;
    const owner = str(ev.subagentRunId);
    const t: ToolState = { name: ev.toolCallName as string, owner, args: [] };
    tools.set(id, t);
    toolNames.set(id, t.name);
    runCalls.add(id);
    // Our parentMessageId is derived (the assistant message of the step); a foreign one is kept.
    const x = extras(ev, m ? ['toolCallId', 'toolCallName', 'parentMessageId'] : ['toolCallId', 'toolCallName']);
    // Ours, for a canonical call that had no tool-input-start: only its tool-input-end comes back.
    if (m?.noStart === true && !x) return t;
    emit({
      type: 'tool-input-start',
      toolCallId: id,
      toolName: t.name,
      providerExecuted: m?.providerExecuted === true ? true : undefined,
      subagentId: owner,
      providerMetadata: pmOf(m, x),
    });
    return t;
  }

  function closeTool(id: string, t: ToolState, ev: Ev | undefined, m: Record<string, unknown> | undefined): void {
    tools.delete(id);
    const text = t.args.join('');
    let input: Json;
    let inputError: string | undefined = str(m?.inputError);
    if (m && m.input !== undefined) input = m.input as Json;
    else if (inputError !== undefined) input = text;
    else if (text.trim() === '') input = {};
    else {
      try {
        input = JSON.parse(text);
      } catch (err) {
        input = text;
        inputError = `tool input is not valid JSON: ${(err as Error).message}`;
      }
    }
    let x = ev ? extras(ev, ['toolCallId']) : undefined;
    if (t.encrypted !== undefined && !isObject(m?.providerMetadata)) x = { ...x, encryptedValue: t.encrypted };
    emit({
      type: 'tool-input-end',
      toolCallId: id,
      toolName: str(m?.toolName) ?? t.name,
      input,
      inputError,
      providerExecuted: m?.providerExecuted === true ? true : undefined,
      subagentId: t.owner,
      providerMetadata: pmOf(m, x),
    });
  }

  /** What is still open, in words (for RUN_FINISHED with open things). */
  function openThings(): string | undefined {
    const parts: string[] = [];
    for (const id of texts.keys()) parts.push(`text message "${id}"`);
    for (const id of reasonings.keys()) parts.push(`reasoning message "${id}"`);
    for (const id of spans) if (!reasonings.has(id)) parts.push(`reasoning span "${id}"`);
    for (const id of tools.keys()) parts.push(`tool call "${id}"`);
    for (const s of steps.values()) parts.push(`step "${s.name}"`);
    for (const id of subagents) parts.push(`subagent "${id}"`);
    return parts.length > 0 ? parts.join(', ') : undefined;
  }

  /** Closes everything still open (end of a run, or of the input). */
  function closeAll(): void {
    lanes.clear();
    for (const [id, t] of [...texts]) closeText(id, t, undefined, undefined);
    for (const [id, r] of [...reasonings]) closeReasoning(id, r, undefined, undefined);
    spans.clear();
    for (const [id, t] of [...tools]) closeTool(id, t, undefined, undefined);
    for (const [key, s] of [...steps]) {
      steps.delete(key);
      emit({ type: 'step-finish', stepId: s.stepId, subagentId: s.owner });
    }
    for (const id of [...subagents]) {
      subagents.delete(id);
      emit({ type: 'subagent-finish', subagentId: id });
    }
  }

  /** AG-UI's START / CONTENT / END families, one row each: the reader handles them all alike. */
  const KINDS: SpanKind<unknown>[] = [
    kind<TextState>({
      label: 'text message',
      idField: 'messageId',
      start: 'TEXT_MESSAGE_START',
      content: 'TEXT_MESSAGE_CONTENT',
      end: 'TEXT_MESSAGE_END',
      implied: (id, owner) => ({ type: 'TEXT_MESSAGE_START', messageId: id, subagentRunId: owner }),
      get: (id) => texts.get(id),
      open: openText,
      append(t, ev, _m, where) {
        if (t.side) t.side.parts.push(ev.delta as string);
        else emit({ type: 'text-delta', blockId: t.blockId, delta: ev.delta as string, subagentId: t.owner });
        rawExtras(ev, extras(ev, ['messageId', 'delta']), where, t.owner);
      },
      close: closeText,
    }),
    kind<ToolState>({
      label: 'tool call',
      idField: 'toolCallId',
      start: 'TOOL_CALL_START',
      content: 'TOOL_CALL_ARGS',
      end: 'TOOL_CALL_END',
      implied: (id, owner) => ({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: 'unknown', subagentRunId: owner }),
      impliedNote: ' as tool "unknown"',
      get: (id) => tools.get(id),
      open: (ev, m) => openTool(ev, m),
      append(t, ev, m, where) {
        t.args.push(ev.delta as string);
        const x = extras(ev, ['toolCallId', 'delta']);
        // Ours: the arguments of an input that arrived whole, which was no canonical delta.
        if (m?.whole === true && !x) return;
        emit({ type: 'tool-input-delta', toolCallId: ev.toolCallId as string, delta: ev.delta as string, subagentId: t.owner });
        rawExtras(ev, x, where, t.owner);
      },
      close: (id, t, ev, m) => closeTool(id, t, ev, m),
    }),
    kind<true>({
      label: 'reasoning span',
      idField: 'messageId',
      start: 'REASONING_START',
      end: 'REASONING_END',
      get: (id) => (spans.has(id) ? true : undefined),
      open(ev, _m, where) {
        spans.add(ev.messageId as string);
        rawExtras(ev, extras(ev, ['messageId']), where, str(ev.subagentRunId));
        return true;
      },
      close(id, _state, ev, _m, where) {
        spans.delete(id);
        if (ev) rawExtras(ev, extras(ev, ['messageId']), where, str(ev.subagentRunId));
      },
    }),
    kind<ReasoningState>({
      label: 'reasoning message',
      idField: 'messageId',
      start: 'REASONING_MESSAGE_START',
      content: 'REASONING_MESSAGE_CONTENT',
      end: 'REASONING_MESSAGE_END',
      implied: (id, owner) => ({ type: 'REASONING_MESSAGE_START', messageId: id, subagentRunId: owner }),
      get: (id) => reasonings.get(id),
      open: (ev, m) => openReasoning(ev, m),
      append(r, ev, _m, where) {
        emit({ type: 'reasoning-delta', blockId: r.blockId, delta: ev.delta as string, subagentId: r.owner });
        rawExtras(ev, extras(ev, ['messageId', 'delta']), where, r.owner);
      },
      close: (id, r, ev, m) => closeReasoning(id, r, ev, m),
    }),
  ];
  const byType = new Map<string, { k: SpanKind<unknown>; phase: 'start' | 'content' | 'end' }>();
  for (const k of KINDS) {
    byType.set(k.start, { k, phase: 'start' });
    if (k.content) byType.set(k.content, { k, phase: 'content' });
    byType.set(k.end, { k, phase: 'end' });
  }

  /**
   * One START / CONTENT / END event: a START of something already open and an END of something not
   * open are located errors; a CONTENT of something not open is one too, and opens it. False for
   * other events.
   */
  function handleSpan(type: string, ev: Ev, m: Meta, where: Location | undefined): boolean {
    const row = byType.get(type);
    if (!row) return false;
    const { k, phase } = row;
    const id = ev[k.idField] as string;
    let state = k.get(id);
    if (phase === 'start') {
      if (state !== undefined)
        sequenceError(
          'unexpected_event',
          `${type} for ${k.label} "${id}", which is already open`,
          where,
          k.idField,
          'an id that is not open',
        );
      else k.open(ev, m, where);
      return true;
    }
    if (phase === 'end') {
      if (state === undefined)
        sequenceError(
          'unknown_block',
          `${type} for ${k.label} "${id}", which is not open`,
          where,
          k.idField,
          `the id of an open ${k.label}`,
        );
      else k.close(id, state, ev, m, where);
      return true;
    }
    if (state === undefined) {
      sequenceError(
        'unknown_block',
        `${type} for ${k.label} "${id}", which was never started (or already ended); opened here${k.impliedNote ?? ''}`,
        where,
        k.idField,
        `the id of an open ${k.label}`,
      );
      state = k.open((k.implied as (id: string, owner: Owner) => Ev)(id, str(ev.subagentRunId)), undefined, where);
    }
    k.append?.(state, ev, m, where);
    return true;
  }

  return { openThings, closeAll, handleSpan };
}
