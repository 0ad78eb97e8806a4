/**
 * The chat over AG-UI: `@ag-ui/client`'s HttpAgent posts RunAgentInput to `/api/agui` and reads
 * the SSE event stream; chat/agui.ts turns the events into the same message shape the AI SDK mode
 * renders. The agent name goes in `forwardedProps.agent`. Updates are batched like `useChat`'s
 * throttle. A server without `/api/agui` gets a clear message instead of a broken chat.
 *
 * Like the AI SDK mode: Enter while an answer streams queues; leaving the chat leaves its run going
 * and reopening resumes it (posting the run's id again answers that run's stream from its start);
 * Stop aborts the run explicitly (run-control.ts); Retry, Regenerate and Edit resend a turn.
 */
import { HttpAgent } from '@ag-ui/client';
import { useCallback, useEffect, useRef, useState } from 'react';

import { tappedFetch } from '../inspector/tap.ts';
import { CONTINUE_ON_DISCONNECT, loadHistory } from '../lib/api.ts';
import { newId } from '../lib/ids.ts';
import { type ChatMessage, isRecord } from '../lib/types.ts';
import { THROTTLE_MS } from './AiSdkChat.tsx';
import { AgUiMessageBuilder, toAgUiMessages } from './agui.ts';
import { Composer } from './Composer.tsx';
import type { ChatProps } from './chat-props.ts';
import { readableError } from './errors.ts';
import { MessageList, type QueuedMessage } from './MessageList.tsx';
import { useRunControl } from './run-control.ts';

export const AGUI_URL = '/api/agui';

function describe(err: unknown): string {
  const status = isRecord(err) && typeof err.status === 'number' ? err.status : undefined;
  if (status === 404 || status === 405 || status === 501)
    return `The AG-UI endpoint ${AGUI_URL} is not available on this server (HTTP ${status}). Switch the protocol back to AI SDK, or run a server with ${AGUI_URL}.`;
  return readableError(err);
}

const userMessage = (text: string): ChatMessage => ({ id: newId(), role: 'user', parts: [{ type: 'text', text }] });

export function AgUiChat({
  chatId,
  initialMessages,
  resumeRunId,
  agent,
  onSend,
  onRunStart,
  onRunEnd,
  onInspect,
  empty,
  composerRef,
}: ChatProps) {
  const [messages, setMessages] = useState<ChatMessage[]>(initialMessages);
  const [liveId, setLiveId] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [queued, setQueued] = useState<QueuedMessage[]>([]);
  const [stopped, setStopped] = useState<ReadonlySet<string>>(() => new Set());
  const [sentCount, setSentCount] = useState(0);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const running = useRef<HttpAgent | undefined>(undefined);
  const unmounted = useRef(false);
  const control = useRunControl(() => running.current?.abortRun());

  /** Runs one turn: `before` is the conversation it answers; `runId` an existing run to follow. */
  const run = useCallback(
    async (before: ChatMessage[], runId = newId()) => {
      setError(undefined);
      setMessages(before);
      setBusy(true);
      const builder = new AgUiMessageBuilder(newId());
      const http = new HttpAgent({
        url: AGUI_URL,
        threadId: chatId,
        initialMessages: toAgUiMessages(before),
        headers: { ...CONTINUE_ON_DISCONNECT },
        fetch: tappedFetch(chatId, 'ag-ui', (id) => {
          control.onRun(id ?? runId);
          onRunStart();
        }),
      });
      running.current = http;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const flush = () => {
        timer = undefined;
        if (unmounted.current) return;
        // A resumed run replays the message history already had: replace it, do not add a second one.
        const rest = before.filter((m) => m.id !== builder.id);
        setMessages(builder.parts.length ? [...rest, builder.message] : rest);
        setLiveId(builder.finished ? undefined : builder.id);
        setStatus(builder.status);
      };
      try {
        await http.runAgent(
          { runId, forwardedProps: { agent } },
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
        control.ended();
        running.current = undefined;
        if (!unmounted.current) {
          setBusy(false);
          const h = await loadHistory(chatId);
          if (h.ok && h.data.length === messagesRef.current.length && h.data.length > 0) setMessages(h.data);
          onRunEnd();
        }
      }
    },
    [agent, chatId, onRunStart, onRunEnd, control.onRun, control.ended],
  );

  // Reopened mid-answer: follow the run that is still going.
  const resumed = useRef(false);
  useEffect(() => {
    unmounted.current = false;
    if (resumeRunId && !resumed.current) {
      resumed.current = true;
      void run(messagesRef.current, resumeRunId);
    }
    return () => {
      // Leaving the chat: stop listening; the run goes on on the server (CONTINUE_ON_DISCONNECT).
      unmounted.current = true;
      running.current?.abortRun();
    };
  }, [resumeRunId, run]);

  // Queued messages go one by one once the answer in progress ended.
  useEffect(() => {
    if (busy || queued.length === 0) return;
    const [next, ...rest] = queued;
    setQueued(rest);
    void run([...messagesRef.current, userMessage(next.text)]);
  }, [busy, queued, run]);

  const send = (text: string) => {
    onSend();
    setSentCount((n) => n + 1);
    if (busy) setQueued((q) => [...q, { id: newId(), text }]);
    else void run([...messagesRef.current, userMessage(text)]);
  };
  /** The conversation up to and including the last user message (what a resend answers). */
  const upToLastUser = () => {
    const all = messagesRef.current;
    const at = all.findLastIndex((m) => m.role === 'user');
    return at === -1 ? undefined : all.slice(0, at + 1);
  };
  const actions = {
    onRetry: () => {
      const before = upToLastUser();
      if (before) void run(before);
    },
    onRegenerate: () => {
      const before = upToLastUser();
      if (before) void run(before);
    },
    onEdit: (messageId: string, text: string) => {
      const all = messagesRef.current;
      const at = all.findIndex((m) => m.id === messageId);
      if (at === -1) return;
      setSentCount((n) => n + 1);
      void run([...all.slice(0, at), { ...all[at], parts: [{ type: 'text', text }] }]);
    },
  };

  return (
    <>
      <MessageList
        messages={messages}
        busy={busy}
        {...(liveId ? { liveId } : {})}
        {...(error ? { error } : {})}
        {...(status ? { status } : {})}
        stopped={stopped}
        queued={queued}
        onRemoveQueued={(id) => setQueued((q) => q.filter((m) => m.id !== id))}
        onInspect={onInspect}
        actions={actions}
        empty={empty}
        sentCount={sentCount}
      />
      <Composer
        ref={composerRef}
        busy={busy}
        stopping={control.stopping}
        placeholder={`Message ${agent} (AG-UI)`}
        onSend={send}
        onStop={() => {
          if (liveId) setStopped((s) => new Set(s).add(liveId));
          control.stop(liveId !== undefined);
        }}
      />
    </>
  );
}
