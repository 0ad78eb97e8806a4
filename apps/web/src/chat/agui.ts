/**
 * AG-UI events → one AI SDK-shaped assistant message, so the AG-UI mode renders with the same
 * components as the `useChat` mode. Switchboard's AG-UI encoder carries what AG-UI has no field for
 * in `metadata.switchboard` (reasoning variant, tool result JSON flag, …) and sends todos as state,
 * usage / sources / errors as CUSTOM `switchboard.*` events; this reads them back.
 *
 * Immutable updates: each event replaces only the part it changes, so the renderer's per-part
 * memoization works exactly as with `useChat`.
 */
import { applyJsonPatch, type JsonPatchOperation } from '@switchboard/client';

import type { ChatMessage, LoosePart } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

type AgUiEvent = { type: string } & Record<string, unknown>;

const NS = 'switchboard';

function meta(e: AgUiEvent): Record<string, unknown> {
  const m = e.metadata;
  if (isRecord(m) && isRecord(m[NS])) return m[NS] as Record<string, unknown>;
  return {};
}

function parseArgs(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class AgUiMessageBuilder {
  id: string;
  runId: string | undefined;
  parts: LoosePart[] = [];
  error: string | undefined;
  finished = false;
  /** Transient status (CUSTOM switchboard.status). */
  status: string | undefined;
  private readonly byMessage = new Map<string, number>();
  private readonly byTool = new Map<string, { index: number; args: string }>();
  private state: Record<string, unknown> = {};

  constructor(fallbackId: string) {
    this.id = fallbackId;
  }

  get message(): ChatMessage {
    return { id: this.id, role: 'assistant', parts: this.parts as unknown as ChatMessage['parts'] };
  }

  private push(part: LoosePart): number {
    this.parts = [...this.parts, part];
    return this.parts.length - 1;
  }

  private update(index: number, change: Record<string, unknown>): void {
    const next = this.parts.slice();
    next[index] = { ...next[index], ...change } as LoosePart;
    this.parts = next;
  }

  private setData(type: string, id: string, data: unknown): void {
    const at = this.parts.findIndex((p) => p.type === type && p.id === id);
    if (at === -1) this.push({ type, id, data });
    else this.update(at, { data });
  }

  /** Applies one AG-UI event. */
  apply(e: AgUiEvent): void {
    const m = meta(e);
    switch (e.type) {
      case 'RUN_STARTED':
        this.runId = typeof e.runId === 'string' ? e.runId : undefined;
        if (typeof m.messageId === 'string') this.id = m.messageId;
        return;
      case 'STEP_STARTED':
        this.push({ type: 'step-start', ...(typeof e.stepName === 'string' ? { stepName: e.stepName } : {}) });
        return;
      case 'TEXT_MESSAGE_START':
        this.byMessage.set(String(e.messageId), this.push({ type: 'text', text: '', state: 'streaming' }));
        return;
      case 'TEXT_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CONTENT': {
        const at = this.byMessage.get(String(e.messageId));
        if (at === undefined) return;
        this.update(at, { text: String(this.parts[at].text ?? '') + String(e.delta ?? '') });
        return;
      }
      case 'TEXT_MESSAGE_END':
      case 'REASONING_MESSAGE_END': {
        const at = this.byMessage.get(String(e.messageId));
        if (at !== undefined) this.update(at, { state: 'done' });
        return;
      }
      case 'REASONING_MESSAGE_START': {
        const variant = m.variant === 'processing' ? 'processing' : 'thinking';
        const at = this.push({ type: 'reasoning', text: '', state: 'streaming', providerMetadata: { [NS]: { variant } } });
        this.byMessage.set(String(e.messageId), at);
        return;
      }
      case 'TOOL_CALL_START': {
        const at = this.push({
          type: 'dynamic-tool',
          toolName: String(e.toolCallName ?? 'tool'),
          toolCallId: String(e.toolCallId),
          state: 'input-streaming',
          input: undefined,
          ...(m.providerExecuted === true ? { providerExecuted: true } : {}),
        });
        this.byTool.set(String(e.toolCallId), { index: at, args: '' });
        return;
      }
      case 'TOOL_CALL_ARGS': {
        const t = this.byTool.get(String(e.toolCallId));
        if (!t) return;
        t.args += String(e.delta ?? '');
        return;
      }
      case 'TOOL_CALL_END': {
        const t = this.byTool.get(String(e.toolCallId));
        if (!t) return;
        const input = m.input !== undefined ? m.input : (parseArgs(t.args) ?? t.args);
        this.update(t.index, { state: 'input-available', input, ...(typeof m.toolName === 'string' ? { toolName: m.toolName } : {}) });
        return;
      }
      case 'TOOL_CALL_RESULT': {
        let t = this.byTool.get(String(e.toolCallId));
        if (!t) {
          const index = this.push({
            type: 'dynamic-tool',
            toolName: String(m.toolName ?? 'tool'),
            toolCallId: String(e.toolCallId),
            state: 'input-available',
            input: {},
          });
          t = { index, args: '' };
          this.byTool.set(String(e.toolCallId), t);
        }
        const content = String(e.content ?? '');
        if (m.error === true) this.update(t.index, { state: 'output-error', errorText: content });
        else {
          let output: unknown = content;
          if (m.json === true) output = parseArgs(content) ?? content;
          this.update(t.index, { state: 'output-available', output, ...(m.preliminary === true ? { preliminary: true } : {}) });
        }
        return;
      }
      case 'STATE_SNAPSHOT':
        if (isRecord(e.snapshot)) {
          this.state = { ...e.snapshot };
          this.syncState();
        }
        return;
      case 'STATE_DELTA':
        if (Array.isArray(e.delta)) {
          try {
            const next = applyJsonPatch(this.state, e.delta as JsonPatchOperation[]);
            if (isRecord(next)) this.state = next;
          } catch {
            // A patch that does not apply leaves the state as it was (AG-UI's own client does the same).
          }
          this.syncState();
        }
        return;
      case 'CUSTOM': {
        const name = String(e.name ?? '');
        const value = e.value;
        if (name === `${NS}.usage` && isRecord(value)) {
          const usage = isRecord(value.usage) ? value.usage : {};
          this.setData('data-usage', 'usage', {
            scope: value.scope,
            ...usage,
            ...(typeof value.durationMs === 'number' ? { durationMs: value.durationMs } : {}),
          });
        } else if (name === `${NS}.source` && isRecord(value)) {
          if (typeof value.url === 'string')
            this.push({
              type: 'source-url',
              sourceId: String(value.sourceId ?? value.url),
              url: value.url,
              ...(typeof value.title === 'string' ? { title: value.title } : {}),
            });
          else
            this.push({
              type: 'source-document',
              sourceId: String(value.sourceId ?? ''),
              title: String(value.title ?? 'Document'),
              mediaType: String(value.mediaType ?? 'text/plain'),
            });
        } else if (name === `${NS}.error` && isRecord(value)) {
          this.push({ type: 'data-error', data: { message: String(value.message ?? 'error'), code: value.code } });
        } else if (name === `${NS}.status` && isRecord(value)) {
          this.status = typeof value.message === 'string' ? value.message : String(value.status ?? '');
        } else if (name === `${NS}.file` && isRecord(value)) {
          this.push({
            type: 'file',
            url: String(value.url ?? ''),
            mediaType: String(value.mediaType ?? ''),
            ...(typeof value.filename === 'string' ? { filename: value.filename } : {}),
          });
        } else if (name !== `${NS}.citation`) {
          this.push({ type: 'data-custom', data: { name, value } });
        }
        return;
      }
      case 'SUBAGENT_STARTED':
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        this.push({
          type: 'data-subagent',
          id: String(e.subagentRunId ?? ''),
          data: { event: e.type === 'SUBAGENT_STARTED' ? 'subagent-start' : 'subagent-finish', name: e.name, task: e.description },
        });
        return;
      case 'RUN_ERROR':
        this.error = String(e.message ?? 'The run failed.');
        this.finish();
        return;
      case 'RUN_FINISHED':
        if (isRecord(m.usage) && !this.parts.some((p) => p.type === 'data-usage')) this.setData('data-usage', 'usage', m.usage);
        this.finish();
        return;
      default:
        return;
    }
  }

  private syncState(): void {
    if (Array.isArray(this.state.todos)) this.setData('data-todos', 'todos', { todos: this.state.todos });
    const rest = Object.fromEntries(Object.entries(this.state).filter(([k]) => k !== 'todos'));
    if (Object.keys(rest).length) this.setData('data-state', 'state', rest);
  }

  /** Marks everything still streaming as ended (run finished, failed or stopped). */
  finish(): void {
    this.finished = true;
    if (this.parts.some((p) => p.state === 'streaming'))
      this.parts = this.parts.map((p) => (p.state === 'streaming' ? { ...p, state: 'done' } : p));
  }
}

/** UIMessages → AG-UI messages (text only) for the HttpAgent's conversation. */
export function toAgUiMessages(messages: readonly ChatMessage[]): { id: string; role: 'user' | 'assistant' | 'system'; content: string }[] {
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'system')
    .map((m) => ({
      id: m.id,
      role: m.role,
      content: (m.parts as unknown as LoosePart[]).map((p) => (p.type === 'text' ? String(p.text ?? '') : '')).join(''),
    }));
}
