/**
 * The chat over AG-UI: `@ag-ui/client`'s HttpAgent posts RunAgentInput to `/api/agui` and reads
 * the SSE event stream; chat/agui.ts turns the events into the same message shape the AI SDK mode
 * renders. The agent name goes in `forwardedProps.agent`. Updates are batched like `useChat`'s
 * throttle. A server without `/api/agui` gets a clear message instead of a broken chat.
 */
import { HttpAgent } from '@ag-ui/client';
import { useCallback, useRef, useState } from 'react';

import { tappedFetch } from '../inspector/tap.ts';
import { loadHistory } from '../lib/api.ts';
import { newId } from '../lib/ids.ts';
import { type ChatMessage, isRecord } from '../lib/types.ts';
import { THROTTLE_MS } from './AiSdkChat.tsx';
import { AgUiMessageBuilder, toAgUiMessages } from './agui.ts';
import { Composer } from './Composer.tsx';
import { readableError } from './errors.ts';
import { MessageList } from './MessageList.tsx';

interface Props {
  chatId: string;
  initialMessages: ChatMessage[];
  agent: string;
  onSend: () => void;
  onRunEnd: () => void;
  onInspect: (messageId: string) => void;
  empty: React.ReactNode;
}

export const AGUI_URL = '/api/agui';

function describe(err: unknown): string {
  const status = isRecord(err) && typeof err.status === 'number' ? err.status : undefined;
  if (status === 404 || status === 405 || status === 501)
    return `The AG-UI endpoint ${AGUI_URL} is not available on this server (HTTP ${status}). Switch the protocol back to AI SDK, or run a server with ${AGUI_URL}.`;
  return readableError(err);
}

export function AgUiChat({ chatId, initialMessages, agent, onSend, onRunEnd, onInspect, empty }: Props) {
  const [messages, setMessages] = useState<ChatMessage[]>(initialMessages);
  const [liveId, setLiveId] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const running = useRef<HttpAgent | undefined>(undefined);

  const send = useCallback(
    async (text: string) => {
      onSend();
      setError(undefined);
      const user: ChatMessage = { id: newId(), role: 'user', parts: [{ type: 'text', text }] };
      const before = [...messagesRef.current, user];
      setMessages(before);
      setBusy(true);
      const builder = new AgUiMessageBuilder(newId());
      const http = new HttpAgent({
        url: AGUI_URL,
        threadId: chatId,
        initialMessages: toAgUiMessages(before),
        fetch: tappedFetch(chatId, 'ag-ui'),
      });
      running.current = http;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const flush = () => {
        timer = undefined;
        setMessages(builder.parts.length ? [...before, builder.message] : before);
        setLiveId(builder.finished ? undefined : builder.id);
        setStatus(builder.status);
      };
      try {
        await http.runAgent(
          { runId: newId(), forwardedProps: { agent } },
          {
            onEvent: ({ event }) => {
              builder.apply(event as unknown as { type: string } & Record<string, unknown>);
              timer ??= setTimeout(flush, THROTTLE_MS);
            },
          },
        );
        if (builder.error) setError(builder.error);
      } catch (err) {
        if ((err as Error)?.name !== 'AbortError') setError(describe(err));
      } finally {
        if (timer !== undefined) clearTimeout(timer);
        builder.finish();
        flush();
        setBusy(false);
        running.current = undefined;
        const h = await loadHistory(chatId);
        if (h.ok && h.data.length === messagesRef.current.length && h.data.length > 0) setMessages(h.data);
        onRunEnd();
      }
    },
    [agent, chatId, onSend, onRunEnd],
  );

  return (
    <>
      <MessageList
        messages={messages}
        {...(liveId ? { liveId } : {})}
        {...(error ? { error } : {})}
        {...(status ? { status } : {})}
        onInspect={onInspect}
        empty={empty}
      />
      <Composer
        busy={busy}
        placeholder={`Message ${agent} (AG-UI)`}
        onSend={(t) => void send(t)}
        onStop={() => running.current?.abortRun()}
      />
    </>
  );
}
