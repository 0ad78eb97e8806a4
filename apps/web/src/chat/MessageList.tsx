/**
 * The conversation. Only the message that changed re-renders (MessageView is memoized). It sticks
 * to the bottom while an answer grows unless the reader scrolled up (`use-stick-to-bottom`); then a
 * "Jump to latest" button brings it back, and sending a message always does. It is a `log` for
 * screen readers, busy while an answer streams, so the answer is read once it is complete.
 */
import { type ReactNode, useEffect, useRef } from 'react';
import { useStickToBottom } from 'use-stick-to-bottom';

import type { ChatMessage } from '../lib/types.ts';
import { type AnswerApproval, ApprovalContext } from '../render/Approval.tsx';
import { type MessageActions, MessageView, RequestError } from '../render/Message.tsx';

/** A message waiting to be sent after the answer in progress. */
export interface QueuedMessage {
  id: string;
  text: string;
}

interface Props {
  messages: readonly ChatMessage[];
  /** Id of the message that is streaming. */
  liveId?: string;
  busy: boolean;
  /** Error of the last request: shown on the last assistant message, or after the user's message. */
  error?: string;
  status?: string;
  /** Messages the reader stopped. */
  stopped?: ReadonlySet<string>;
  queued?: readonly QueuedMessage[];
  onRemoveQueued?: (id: string) => void;
  onInspect?: (messageId: string) => void;
  actions?: MessageActions;
  empty?: ReactNode;
  footer?: ReactNode;
  /** Answers a tool approval (Approve / Deny on the tool card). */
  onApproval?: AnswerApproval;
  /** Changes whenever the reader sent something: scroll to it whatever the position. */
  sentCount: number;
}

export function MessageList({
  messages,
  liveId,
  busy,
  error,
  status,
  stopped,
  queued,
  onRemoveQueued,
  onInspect,
  actions,
  empty,
  footer,
  sentCount,
  onApproval,
}: Props) {
  const { scrollRef, contentRef, isAtBottom, scrollToBottom } = useStickToBottom({ initial: 'instant', resize: 'instant' });
  const sent = useRef(sentCount);
  useEffect(() => {
    if (sent.current === sentCount) return;
    sent.current = sentCount;
    void scrollToBottom('instant');
  }, [sentCount, scrollToBottom]);

  const last = messages.at(-1);
  const errorOnLast = error && last?.role === 'assistant' ? error : undefined;
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  const lastUser = messages.findLast((m) => m.role === 'user');
  return (
    <div className="messages-wrap">
      <div className="messages" ref={scrollRef} data-testid="messages">
        <div className="messages-inner" ref={contentRef} role="log" aria-label="Conversation" aria-busy={busy}>
          {messages.length === 0 ? empty : null}
          <ApprovalContext.Provider value={onApproval}>
            {messages.map((m) => {
              const mine: MessageActions = {};
              if (!busy && m === lastAssistant && actions?.onRegenerate) mine.onRegenerate = actions.onRegenerate;
              if (!busy && m === last && errorOnLast && actions?.onRetry) mine.onRetry = actions.onRetry;
              if (!busy && m === lastUser && actions?.onEdit) mine.onEdit = actions.onEdit;
              return (
                <MessageView
                  key={m.id}
                  message={m}
                  live={m.id === liveId}
                  {...(m === last && errorOnLast ? { error: errorOnLast } : {})}
                  {...(m.id === liveId && status ? { status } : {})}
                  {...(stopped?.has(m.id) ? { stopped: true } : {})}
                  {...(onInspect ? { onInspect } : {})}
                  actions={mine}
                />
              );
            })}
          </ApprovalContext.Provider>
          {error && !errorOnLast ? (
            <RequestError error={error} {...(actions?.onRetry && !busy ? { onRetry: actions.onRetry } : {})} />
          ) : null}
          {footer}
          {queued?.length ? (
            <ul className="queued" aria-label="Queued messages" data-testid="queued">
              {queued.map((q) => (
                <li key={q.id} className="msg user queued-item">
                  <span className="user-text">{q.text}</span>
                  <span className="muted small">queued</span>
                  {onRemoveQueued ? (
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => onRemoveQueued(q.id)}
                      aria-label={`Remove queued message: ${q.text}`}
                    >
                      Remove
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </div>
      {isAtBottom ? null : (
        <button type="button" className="jump" onClick={() => void scrollToBottom('instant')} data-testid="jump-to-latest">
          ↓ Jump to latest
        </button>
      )}
    </div>
  );
}
