/**
 * The formatter conventions of the simplified Claude agent format's server, for that format's own
 * frontends (the AI SDK encoder with namespace `mobox`):
 * - todos are also text of the processing block (one line per item, `☐` pending, `◐` in progress,
 *   `☑` completed, `☒` cancelled), which they open (closing a thinking block) when none is open;
 * - tool calls and results do not close the processing block: a processing block the input closed
 *   before a tool call stays open, and the next one (a status after the call) continues it. Anything
 *   else — thinking, text, a step boundary, the end — closes it.
 * A canonical → canonical transform: the encoder sees well-formed blocks, and the todos event itself
 * still goes through (the `data-todos` part).
 */
import type { CanonicalEvent, EventOf, ProviderMetadata, Todo } from '../model/events.ts';
import { mergeProviderMetadata } from '../model/metadata.ts';
import type { TodoStatus } from '../model/vocabulary.ts';

const MARK: Record<TodoStatus, string> = { pending: '☐', in_progress: '◐', completed: '☑', cancelled: '☒' };

/** A todo list as processing-block text. */
export function todosText(todos: readonly Todo[]): string {
  const done = todos.filter((t) => t.status === 'completed').length;
  return [`Todos (${done}/${todos.length} done):`, ...todos.map((t) => `${MARK[t.status] ?? '☐'} ${t.content}`)].join('\n');
}

/** Events a held processing block stays open across. */
const KEEPS: ReadonlySet<CanonicalEvent['type']> = new Set([
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-output',
  'tool-error',
  'usage',
  'status',
  'raw',
  'custom',
  'state-snapshot',
  'state-delta',
]);

/** Creates the transform: `push(event)` gives the events to encode in its place; `end()` what is still open. */
export function createSeed000Blocks() {
  /** The processing block open on the output, and whether the input already ended it (held open). */
  let proc: { id: string; held: boolean; hasContent: boolean; pm: ProviderMetadata | undefined; subagentId?: string } | undefined;
  /** Input block id → output block id (a processing block continued, a thinking block reopened). */
  const remap = new Map<string, string>();
  /** Thinking blocks open on the output (input id → output id), and those a todos event closed early. */
  const thinking = new Map<string, string>();
  const closedEarly = new Map<string, number>();
  let last: CanonicalEvent | undefined;

  const env = (e: CanonicalEvent) => ({ runId: e.runId, seq: e.seq, ts: e.ts });

  function flush(out: CanonicalEvent[], e: CanonicalEvent): void {
    if (!proc) return;
    if (proc.held) {
      const end: CanonicalEvent = { type: 'reasoning-end', ...env(e), blockId: proc.id };
      if (proc.pm) end.providerMetadata = proc.pm;
      if (proc.subagentId !== undefined) end.subagentId = proc.subagentId;
      out.push(end);
    }
    for (const [from, to] of remap) if (to === proc.id) remap.delete(from);
    proc = undefined;
  }

  function todos(out: CanonicalEvent[], e: EventOf<'todos'>): void {
    for (const [input, output] of thinking) {
      out.push({ type: 'reasoning-end', ...env(e), blockId: output });
      closedEarly.set(input, (closedEarly.get(input) ?? 1) + 1);
    }
    thinking.clear();
    if (!proc) {
      const id = `todos-${e.seq}`;
      out.push({ type: 'reasoning-start', ...env(e), blockId: id, variant: 'processing' });
      // No input end will come for it: held from the start.
      proc = { id, held: true, hasContent: false, pm: undefined };
    }
    out.push({ type: 'reasoning-delta', ...env(e), blockId: proc.id, delta: `${proc.hasContent ? '\n' : ''}${todosText(e.todos)}` });
    proc.hasContent = true;
    out.push(e);
  }

  function reasoning(out: CanonicalEvent[], e: EventOf<'reasoning-start'> | EventOf<'reasoning-delta'> | EventOf<'reasoning-end'>): void {
    if (e.type === 'reasoning-start') {
      if (e.variant === 'processing' && proc?.held) {
        remap.set(e.blockId, proc.id); // continues the held block
        return;
      }
      flush(out, e);
      if (e.variant === 'processing') proc = { id: e.blockId, held: false, hasContent: false, pm: undefined };
      else thinking.set(e.blockId, e.blockId);
      out.push(e);
      return;
    }
    let id = remap.get(e.blockId) ?? e.blockId;
    if (e.type === 'reasoning-delta') {
      const n = closedEarly.get(e.blockId);
      if (n !== undefined && !thinking.has(e.blockId)) {
        // A thinking block a todos event closed goes on as a new block.
        flush(out, e);
        id = `${e.blockId}~${n}`;
        remap.set(e.blockId, id);
        thinking.set(e.blockId, id);
        out.push({ type: 'reasoning-start', ...env(e), blockId: id, variant: 'thinking' });
      }
      if (proc && id === proc.id) {
        const delta = proc.hasContent && remap.has(e.blockId) && !e.delta.startsWith('\n') ? `\n${e.delta}` : e.delta;
        proc.hasContent ||= e.delta !== '';
        out.push({ ...e, blockId: id, delta });
        return;
      }
      out.push(id === e.blockId ? e : { ...e, blockId: id });
      return;
    }
    // reasoning-end
    if (proc && id === proc.id) {
      proc.held = true; // kept open across tool calls; closed by what comes next
      proc.pm = mergeProviderMetadata(proc.pm, e.providerMetadata);
      if (e.subagentId !== undefined) proc.subagentId = e.subagentId;
      return;
    }
    if (closedEarly.has(e.blockId) && !thinking.has(e.blockId)) return; // already ended
    thinking.delete(e.blockId);
    out.push(id === e.blockId ? e : { ...e, blockId: id });
  }

  return {
    push(e: CanonicalEvent): CanonicalEvent[] {
      last = e;
      const out: CanonicalEvent[] = [];
      if (e.type === 'todos') todos(out, e);
      else if (e.type === 'reasoning-start' || e.type === 'reasoning-delta' || e.type === 'reasoning-end') reasoning(out, e);
      else {
        const keep = KEEPS.has(e.type) || (e.type === 'error' && !e.fatal);
        if (!keep) flush(out, e);
        out.push(e);
      }
      return out;
    },
    end(): CanonicalEvent[] {
      const out: CanonicalEvent[] = [];
      if (last) flush(out, last);
      return out;
    },
  };
}
