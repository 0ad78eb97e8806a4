/**
 * The chat over the AI SDK UI message stream: `useChat` with `DefaultChatTransport` against
 * `/api/chat`. The chosen agent travels in the request body (`agent`). Updates are throttled
 * (`experimental_throttle`), so a fast stream costs at most one React render per THROTTLE_MS.
 * When a run ends the conversation is re-read from history (when the server has it), so what the
 * page shows after the run is exactly what a reload shows — durations measured by the server.
 */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { tappedFetch } from '../inspector/tap.ts';
import { loadHistory } from '../lib/api.ts';
import { type ChatMessage, isRecord } from '../lib/types.ts';
import { Composer } from './Composer.tsx';
import { readableError } from './errors.ts';
import { MessageList } from './MessageList.tsx';

/** At most one render of the streaming message per this many ms. */
export const THROTTLE_MS = 50;

interface Props {
  chatId: string;
  initialMessages: ChatMessage[];
  agent: string;
  onSend: () => void;
  onRunEnd: () => void;
  onInspect: (messageId: string) => void;
  empty: React.ReactNode;
}

function sameIds(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m.id === b[i].id);
}

export function AiSdkChat({ chatId, initialMessages, agent, onSend, onRunEnd, onInspect, empty }: Props) {
  const agentRef = useRef(agent);
  agentRef.current = agent;
  const [statusLine, setStatusLine] = useState<string>();
  const transport = useMemo(
    () => new DefaultChatTransport({ api: '/api/chat', fetch: tappedFetch(chatId, 'ai-sdk'), body: () => ({ agent: agentRef.current }) }),
    [chatId],
  );
  const reconcile = useRef<(() => Promise<void>) | undefined>(undefined);
  const { messages, sendMessage, status, error, stop, setMessages, clearError } = useChat({
    id: chatId,
    messages: initialMessages,
    transport,
    experimental_throttle: THROTTLE_MS,
    onData: (part) => {
      if (part.type === 'data-status' && isRecord(part.data))
        setStatusLine(typeof part.data.message === 'string' ? part.data.message : String(part.data.status ?? ''));
    },
    onFinish: () => {
      setStatusLine(undefined);
      void reconcile.current?.();
    },
  });

  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  reconcile.current = async () => {
    const h = await loadHistory(chatId);
    // Replace only when history holds exactly this conversation (same messages, same order).
    if (h.ok && sameIds(h.data, messagesRef.current)) setMessages(h.data);
    onRunEnd();
  };

  useEffect(() => {
    window.__switchboard = { ...window.__switchboard, chatStatus: status };
  }, [status]);

  const busy = status === 'submitted' || status === 'streaming';
  const last = messages.at(-1);
  const liveId = busy && last?.role === 'assistant' ? last.id : undefined;
  const send = useCallback(
    (text: string) => {
      clearError();
      onSend();
      void sendMessage({ text });
    },
    [sendMessage, onSend, clearError],
  );
  return (
    <>
      <MessageList
        messages={messages}
        {...(liveId ? { liveId } : {})}
        {...(status === 'error' && error ? { error: readableError(error) } : {})}
        {...(statusLine ? { status: statusLine } : {})}
        onInspect={onInspect}
        empty={empty}
        footer={status === 'submitted' && last?.role === 'user' ? <div className="status-line muted">Waiting for the agent…</div> : null}
      />
      <Composer busy={busy} placeholder={`Message ${agent}`} onSend={send} onStop={() => void stop()} />
    </>
  );
}

declare global {
  interface Window {
    /** State the browser tests and the bench read. */
    __switchboard?: { chatStatus?: string; [k: string]: unknown };
  }
}
