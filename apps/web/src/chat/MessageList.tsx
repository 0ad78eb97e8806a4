/**
 * The conversation. Only the message that changed re-renders (the others keep their object
 * identity in `useChat`'s state, and MessageView is memoized); the list keeps itself scrolled to
 * the bottom while it grows unless the reader scrolled up.
 */
import { type ReactNode, useEffect, useLayoutEffect, useRef } from 'react';

import type { ChatMessage } from '../lib/types.ts';
import { MessageView } from '../render/Message.tsx';

interface Props {
  messages: readonly ChatMessage[];
  /** Id of the message that is streaming. */
  liveId?: string;
  /** Error to show on the last assistant message. */
  error?: string;
  status?: string;
  onInspect?: (messageId: string) => void;
  empty?: ReactNode;
  footer?: ReactNode;
}

export function MessageList({ messages, liveId, error, status, onInspect, empty, footer }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onScroll = () => {
      stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll after every change of the list
  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages, error]);

  const last = messages.at(-1);
  const errorOnLast = error && last?.role === 'assistant' ? error : undefined;
  return (
    <div className="messages" ref={box} data-testid="messages">
      {messages.length === 0 ? empty : null}
      {messages.map((m) => (
        <MessageView
          key={m.id}
          message={m}
          live={m.id === liveId}
          {...(m === last && errorOnLast ? { error: errorOnLast } : {})}
          {...(m.id === liveId && status ? { status } : {})}
          {...(onInspect ? { onInspect } : {})}
        />
      ))}
      {error && !errorOnLast ? (
        <div className="msg assistant">
          <div className="inline-error" role="alert" data-testid="inline-error">
            <strong>Error</strong> {error}
          </div>
        </div>
      ) : null}
      {footer}
    </div>
  );
}
