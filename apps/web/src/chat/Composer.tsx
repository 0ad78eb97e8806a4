/**
 * The message box. Enter sends, Shift+Enter is a new line. While an answer streams, Enter still
 * sends: the chat queues the message and sends it when the answer ends (Stop is its own button,
 * and Escape). The box keeps focus, so a conversation needs no mouse.
 */
import { forwardRef, useImperativeHandle, useRef, useState } from 'react';

interface Props {
  busy: boolean;
  disabled?: boolean;
  placeholder: string;
  onSend: (text: string) => void;
  onStop: () => void;
  /** Stop was asked and the run has not ended yet. */
  stopping?: boolean;
}

export interface ComposerHandle {
  focus(): void;
  /** Puts `text` in the box (a suggestion) and focuses it. */
  fill(text: string): void;
}

export const Composer = forwardRef<ComposerHandle, Props>(function Composer(
  { busy, disabled, placeholder, onSend, onStop, stopping },
  handle,
) {
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(
    handle,
    () => ({
      focus: () => ref.current?.focus(),
      fill: (t: string) => {
        setText(t);
        ref.current?.focus();
      },
    }),
    [],
  );
  const submit = () => {
    const t = text.trim();
    if (!t || disabled) return;
    setText('');
    onSend(t);
    ref.current?.focus();
  };
  return (
    <form
      className="composer"
      aria-label="Send a message"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label className="sr-only" htmlFor="composer-input">
        Message
      </label>
      <textarea
        id="composer-input"
        ref={ref}
        value={text}
        data-testid="composer-input"
        placeholder={busy ? `${placeholder} (sent when the answer ends)` : placeholder}
        disabled={disabled}
        rows={2}
        aria-keyshortcuts="Enter Escape"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          } else if (e.key === 'Escape' && busy) {
            e.preventDefault();
            onStop();
          }
        }}
      />
      <div className="composer-buttons">
        {busy ? (
          <button type="button" className="stop" data-testid="stop" onClick={onStop} disabled={stopping} aria-keyshortcuts="Escape">
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : null}
        <button type="submit" className="primary" data-testid="send" disabled={disabled || text.trim() === ''}>
          {busy ? 'Queue' : 'Send'}
        </button>
      </div>
    </form>
  );
});
