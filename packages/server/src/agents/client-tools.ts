/**
 * Frontend tools in an SDK agent's run: a call the model makes to a tool the client declared
 * (`RunRequest.tools`) is left for the client — a `client-tool-call` after its `tool-input-end` — and
 * the run ends waiting for its output (`run-finish` with `finishReason: 'tool-calls'` and
 * `pending.toolCallIds`). The client's output comes back in the next run's conversation.
 */
import type { CanonicalEvent } from '@switchboard/core';
import type { ClientTool } from '../runner/types.ts';

export async function* withClientTools(
  events: AsyncIterable<CanonicalEvent>,
  tools: readonly ClientTool[] | undefined,
): AsyncGenerator<CanonicalEvent, void, undefined> {
  const names = new Set((tools ?? []).map((t) => t.name));
  const pending: string[] = [];
  // Events after an inserted client-tool-call move up by one seq each time.
  let shift = 0;
  for await (const e of events) {
    const ev = shift === 0 ? e : { ...e, seq: e.seq + shift };
    if (ev.type === 'run-finish' && pending.length > 0 && ev.finishReason !== 'error') {
      yield { ...ev, finishReason: 'tool-calls', pending: { ...ev.pending, toolCallIds: pending } };
      continue;
    }
    yield ev;
    if (ev.type === 'tool-input-end' && !ev.providerExecuted && ev.inputError === undefined && names.has(ev.toolName)) {
      shift++;
      pending.push(ev.toolCallId);
      const call: CanonicalEvent = {
        type: 'client-tool-call',
        runId: ev.runId,
        seq: ev.seq + 1,
        ts: ev.ts,
        toolCallId: ev.toolCallId,
        toolName: ev.toolName,
      };
      if (ev.subagentId) call.subagentId = ev.subagentId;
      yield call;
    }
  }
}
