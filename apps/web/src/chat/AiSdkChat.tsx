/**
 * The chat over the AI SDK UI message stream: `useChat` with `DefaultChatTransport` against
 * `/api/chat`. The chosen agent travels in the request body (`agent`). Updates are throttled
 * (`experimental_throttle`), so a fast stream costs at most one React render per THROTTLE_MS.
 *
 * - Enter while an answer streams queues the message (`experimental_queue`): it is sent when the
 *   answer ends.
 * - Runs survive the page (run-control.ts): leaving the chat closes the stream, not the run;
 *   reopening a chat whose run is still going resumes it (`resume`, by the run's id:
 *   `GET /api/runs/:runId/stream`, which replays the run from its start into the same message, also
 *   when it has ended since the page looked). Stop aborts the run explicitly.
 * - A failed request offers Retry; the last answer Regenerate; the last user message Edit.
 * - A non-fatal problem (a transient `data-error` part, `onData`) is a small dismissible notice; the
 *   run goes on (only an `error` chunk ends it).
 * - When a run ends the conversation is re-read from history (when the server has it), so what the
 *   page shows after the run is exactly what a reload shows — durations measured by the server.
 * - A person in the loop: a tool call waiting for approval has Approve / Deny
 *   (`addToolApprovalResponse`); a frontend tool call (`get_location`) is answered here
 *   (`onToolCall` → `addToolOutput`). Either answer sends the conversation on by itself
 *   (`sendAutomaticallyWhen`, once per answer: client-tools.ts).
 */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { tappedFetch } from '../inspector/tap.ts';
import { CONTINUE_ON_DISCONNECT, loadHistory, runStreamUrl } from '../lib/api.ts';
import { type ChatMessage, isRecord, type LoosePart } from '../lib/types.ts';
import { Composer } from './Composer.tsx';
import type { ChatProps } from './chat-props.ts';
import { continueAfterAnswers, frontendCallsWaiting, runFrontendTool } from './client-tools.ts';
import { nonFatalNotice, readableError } from './errors.ts';
import { MessageList } from './MessageList.tsx';
import { useRunControl } from './run-control.ts';

/** At most one render of the streaming message per this many ms. */
export const THROTTLE_MS = 50;

function sameIds(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m.id === b[i].id);
}

function textOfQueued(m: { parts?: readonly { type: string; text?: string }[] }): string {
  return (m.parts ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

export function AiSdkChat(props: ChatProps) {
  const { chatId, initialMessages, resumeRunId, agent, onSend, onRunStart, onRunEnd, onInspect, empty, composerRef } = props;
  const agentRef = useRef(agent);
  agentRef.current = agent;
  const [statusLine, setStatusLine] = useState<string>();
  /** A non-fatal problem of the run (a `data-error` part): shown, dismissible, the run goes on. */
  const [notice, setNotice] = useState<string>();
  const [stopped, setStopped] = useState<ReadonlySet<string>>(() => new Set());
  const [sentCount, setSentCount] = useState(0);
  const stopStream = useRef<() => void>(() => {});
  const control = useRunControl(() => stopStream.current());
  const onRun = control.onRun;
  // The run this page follows (the one it reopened mid-answer, then each response's): a reconnect
  // asks for it by id, so it gets the run's stream even when the run has ended since.
  const followed = useRef(resumeRunId);
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: '/api/chat',
        fetch: tappedFetch(chatId, 'ai-sdk', (runId) => {
          if (runId) followed.current = runId;
          onRun(runId);
          onRunStart();
        }),
        headers: CONTINUE_ON_DISCONNECT,
        body: () => ({ agent: agentRef.current }),
        prepareReconnectToStreamRequest: () => (followed.current ? { api: runStreamUrl(followed.current) } : {}),
      }),
    [chatId, onRun, onRunStart],
  );
  const reconcile = useRef<(() => Promise<void>) | undefined>(undefined);
  // Approval ids and tool call ids answered on this page and not sent yet; calls answered once.
  const answered = useRef(new Set<string>()).current;
  const ranTools = useRef(new Set<string>()).current;
  const sendAutomaticallyWhen = useMemo(() => continueAfterAnswers(answered), [answered]);
  const answerTool = useRef<(toolName: string, toolCallId: string, input: unknown) => void>(() => {});
  const {
    messages,
    sendMessage,
    regenerate,
    status,
    error,
    stop,
    setMessages,
    clearError,
    experimental_queuedMessages: queued,
    experimental_removeQueuedMessage: removeQueued,
    addToolApprovalResponse,
    addToolOutput,
  } = useChat({
    id: chatId,
    messages: initialMessages,
    transport,
    experimental_throttle: THROTTLE_MS,
    experimental_queue: true,
    // Reopened while its run goes on: replay it live.
    resume: resumeRunId !== undefined,
    onData: (part) => {
      const problem = nonFatalNotice(part);
      if (problem !== undefined) setNotice(problem);
      if (part.type === 'data-status' && isRecord(part.data))
        setStatusLine(typeof part.data.message === 'string' ? part.data.message : String(part.data.status ?? ''));
    },
    onToolCall: ({ toolCall }) => answerTool.current(toolCall.toolName, toolCall.toolCallId, toolCall.input),
    sendAutomaticallyWhen,
    onFinish: ({ finishReason }) => {
      setStatusLine(undefined);
      control.ended();
      // A run that ended waiting for an answer is continued by the next request (which the answer
      // may already have started): leave the live messages alone.
      if (finishReason === 'tool-calls') onRunEnd();
      else void reconcile.current?.();
    },
  });
  answerTool.current = (toolName, toolCallId, input) => {
    if (ranTools.has(toolCallId)) return;
    const running = runFrontendTool(toolName, input);
    if (!running) return;
    ranTools.add(toolCallId);
    void running.then((output) => {
      answered.add(toolCallId);
      void addToolOutput({ tool: toolName, toolCallId, output });
    });
  };
  // Reopened while the last answer waits for a frontend tool (the page that got the call is gone):
  // answer it now. Once, on open; a run still going is resumed instead, and replays the call.
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current) return;
    opened.current = true;
    const last = initialMessages.at(-1);
    if (resumeRunId !== undefined || last?.role !== 'assistant') return;
    for (const call of frontendCallsWaiting(last.parts as unknown as LoosePart[]))
      answerTool.current(call.toolName, call.toolCallId, call.input);
  }, [initialMessages, resumeRunId]);
  const onApproval = useCallback(
    (id: string, approved: boolean) => {
      answered.add(id);
      void addToolApprovalResponse({ id, approved });
    },
    [answered, addToolApprovalResponse],
  );
  stopStream.current = () => void stop();

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
    if (status === 'error') control.ended();
  }, [status, control.ended]);

  const busy = status === 'submitted' || status === 'streaming';
  const last = messages.at(-1);
  const liveId = busy && last?.role === 'assistant' ? last.id : undefined;
  const send = useCallback(
    (text: string) => {
      clearError();
      setNotice(undefined);
      onSend();
      setSentCount((n) => n + 1);
      void sendMessage({ text });
    },
    [sendMessage, onSend, clearError],
  );
  const onStop = () => {
    if (liveId) setStopped((s) => new Set(s).add(liveId));
    control.stop(status === 'streaming');
  };
  const actions = {
    onRetry: () => {
      clearError();
      void regenerate();
    },
    onRegenerate: (messageId: string) => void regenerate({ messageId }),
    onEdit: (messageId: string, text: string) => {
      setSentCount((n) => n + 1);
      void sendMessage({ text, messageId });
    },
  };
  return (
    <>
      <MessageList
        messages={messages}
        busy={busy}
        {...(liveId ? { liveId } : {})}
        {...(status === 'error' && error ? { error: readableError(error) } : {})}
        {...(statusLine ? { status: statusLine } : {})}
        stopped={stopped}
        queued={queued.map((m) => ({ id: m.id, text: textOfQueued(m) }))}
        onRemoveQueued={removeQueued}
        onInspect={onInspect}
        actions={actions}
        empty={empty}
        sentCount={sentCount}
        onApproval={onApproval}
        footer={status === 'submitted' && last?.role === 'user' ? <div className="status-line muted">Waiting for the agent…</div> : null}
      />
      {notice ? (
        <div className="notice" role="status">
          <span>{notice}</span>
          <button type="button" className="notice-dismiss" aria-label="Dismiss" onClick={() => setNotice(undefined)}>
            ×
          </button>
        </div>
      ) : null}
      <Composer ref={composerRef} busy={busy} stopping={control.stopping} placeholder={`Message ${agent}`} onSend={send} onStop={onStop} />
    </>
  );
}

declare global {
  interface Window {
    /** State the browser tests and the bench read. */
    __switchboard?: { chatStatus?: string; [k: string]: unknown };
  }
}
