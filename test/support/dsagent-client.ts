/**
 * What a DeepSearchAgents client holds after a run: the dsagent messages folded as its
 * `use-websocket.tsx` folds them. A stream is one message: the initial message is added, its deltas
 * replace its content, the final message replaces it and keeps the initial message's `message_id`
 * and `timestamp`; every other message is kept as sent.
 */
import type { DsAgentRunMessage } from '@switchboard/core';

/** A DSAgent client's collected state: push every message as it arrives, read `messages`. */
export function dsAgentClient(): { push(m: DsAgentRunMessage): void; messages: DsAgentRunMessage[] } {
  const messages: DsAgentRunMessage[] = [];
  /** stream_id → index of the stream's message while it is open. */
  const streams = new Map<string, number>();
  const push = (m: DsAgentRunMessage): void => {
    const md = m.metadata as Record<string, unknown>;
    const streamId = typeof md.stream_id === 'string' ? md.stream_id : undefined;
    if (streamId === undefined) {
      messages.push(m);
      return;
    }
    if (md.is_initial_stream) {
      streams.set(streamId, messages.length);
      messages.push(m);
      return;
    }
    const at = streams.get(streamId) as number;
    if (md.is_delta) messages[at] = { ...messages[at], content: m.content };
    else {
      messages[at] = { ...m, message_id: messages[at].message_id, timestamp: messages[at].timestamp };
      streams.delete(streamId);
    }
  };
  return { push, messages };
}
