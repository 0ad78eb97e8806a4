/**
 * The chat over AG-UI: `@ag-ui/client`'s HttpAgent posts RunAgentInput to `/api/agui` and reads
 * the SSE event stream; chat/agui.ts turns the events into the same message shape the AI SDK mode
 * renders. The agent name goes in `forwardedProps.agent`. Updates are batched like `useChat`'s
 * throttle. A server without `/api/agui` gets a clear message instead of a broken chat.
 *
 * Like the AI SDK mode: Enter while an answer streams queues; leaving the chat leaves its run going
 * and reopening resumes it (posting the run's id again answers that run's stream from its start);
 * Stop aborts the run explicitly (run-control.ts); Retry, Regenerate and Edit resend a turn.
 *
 * A person in the loop: every run declares the frontend tools (`tools`, client-tools.ts).
 * A run that ends with an interrupt outcome leaves its approvals on the tool cards (Approve / Deny);
 * the answer is a new run of the same conversation with `resume` ({ interruptId, status: 'resolved',
 * payload: { approved } }). A run that leaves a frontend tool call to the client (`get_location`) is
 * answered here, and a new run carries the output as a `tool` message. Both add to the message
 * they continue.
 */
import { HttpAgent } from '@ag-ui/client';
import { useCallback, useEffect, useRef, useState } from 'react';

import { tappedFetch } from '../inspector/tap.ts';
import { CONTINUE_ON_DISCONNECT, loadHistory } from '../lib/api.ts';
import { newId } from '../lib/ids.ts';
import { type ChatMessage, isRecord, type LoosePart } from '../lib/types.ts';
import { THROTTLE_MS } from './AiSdkChat.tsx';
import { AgUiMessageBuilder, toAgUiMessages } from './agui.ts';
import { Composer } from './Composer.tsx';
import type { ChatProps } from './chat-props.ts';
import { FRONTEND_TOOLS, type FrontendCall, frontendCallsWaiting, runFrontendTool } from './client-tools.ts';
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

/** An AG-UI resume entry (`RunAgentInput.resume`). */
interface ResumeEntry {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}

/** A run that goes on with the last message of `before` (an answer to what it waited for). */
interface Continuation {
  resume?: ResumeEntry[];
}

/** `message` with the parts that `match` replaced by `change` of them. */
function withPart(message: ChatMessage, match: (p: LoosePart) => boolean, change: (p: LoosePart) => LoosePart): ChatMessage {
  const parts = (message.parts as unknown as LoosePart[]).map((p) => (match(p) ? change(p) : p));
  return { ...message, parts: parts as unknown as ChatMessage['parts'] };
}

export function AgUiChat(props: ChatProps) {
  const { chatId, initialMessages, resumeRunId, agent, onSend, onRunStart, onRunEnd, onInspect, empty, composerRef } = props;
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

  const runRef = useRef<(before: ChatMessage[], runId?: string, more?: Continuation) => Promise<void>>(async () => {});
  /**
   * Runs one turn: `before` is the conversation it answers; `runId` an existing run to follow;
   * `more` when it continues the last message of `before` (with `resume` entries for approvals).
   */
  const run = useCallback(
    async (before: ChatMessage[], runId = newId(), more?: Continuation) => {
      setError(undefined);
      setMessages(before);
      setBusy(true);
      const continued = more ? before.at(-1) : undefined;
      const builder = new AgUiMessageBuilder(newId(), continued?.role === 'assistant' ? continued : undefined);
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
          {
            runId,
            forwardedProps: { agent },
            tools: FRONTEND_TOOLS.map((t) => ({ ...t })),
            ...(more?.resume ? { resume: more.resume } : {}),
          },
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
          // A run that ended waiting goes on with the reader's answer: keep the live message (the
          // answer adds to it) rather than history's copy.
          const waiting = builder.waiting && !builder.error;
          if (!waiting) {
            const h = await loadHistory(chatId);
            if (h.ok && h.data.length === messagesRef.current.length && h.data.length > 0) setMessages(h.data);
          }
          onRunEnd();
          const calls = waiting ? builder.pendingFrontendCalls : [];
          if (calls.length && !builder.waitingForApproval) void answerCalls.current(before, builder.message, calls);
        }
      }
    },
    [agent, chatId, onRunStart, onRunEnd, control.onRun, control.ended],
  );

  runRef.current = run;

  /** Frontend tools: answers the calls of `message` here, then a run with the outputs as `tool` messages. */
  const answerCalls = useRef(async (before: ChatMessage[], message: ChatMessage, calls: FrontendCall[]) => {
    let answered = message;
    for (const call of calls) {
      const output = await runFrontendTool(call.toolName, call.input);
      answered = withPart(
        answered,
        (p) => p.toolCallId === call.toolCallId,
        (p) => ({ ...p, state: 'output-available', output }),
      );
    }
    if (!unmounted.current) void runRef.current([...before.filter((m) => m.id !== message.id), answered], newId(), {});
  });

  /** Approve / Deny: a run that continues the message with the answer as a `resume` entry. */
  const onApproval = useCallback(
    (approvalId: string, approved: boolean) => {
      const all = messagesRef.current;
      const at = all.findIndex((m) =>
        (m.parts as unknown as LoosePart[]).some((p) => isRecord(p.approval) && p.approval.id === approvalId),
      );
      if (at === -1 || running.current) return;
      const answered = withPart(
        all[at],
        (p) => isRecord(p.approval) && p.approval.id === approvalId,
        (p) => ({ ...p, state: 'approval-responded', approval: { ...(p.approval as object), approved } }),
      );
      void run([...all.slice(0, at), answered], newId(), {
        resume: [{ interruptId: approvalId, status: 'resolved', payload: { approved } }],
      });
    },
    [run],
  );

  // Reopened mid-answer: follow the run that is still going.
  const resumed = useRef(false);
  useEffect(() => {
    unmounted.current = false;
    if (!resumed.current) {
      resumed.current = true;
      const last = messagesRef.current.at(-1);
      // Reopened while the last answer waits for a frontend tool: answer it now.
      const calls = last?.role === 'assistant' ? frontendCallsWaiting(last.parts as unknown as LoosePart[]) : [];
      if (resumeRunId) void run(messagesRef.current, resumeRunId);
      else if (last && calls.length) void answerCalls.current(messagesRef.current, last, calls);
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
        onApproval={onApproval}
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
