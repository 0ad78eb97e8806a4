/** The message box: Enter sends, Shift+Enter is a new line; the button stops a running answer. */
import { useRef, useState } from 'react';

interface Props {
  busy: boolean;
  disabled?: boolean;
  placeholder: string;
  onSend: (text: string) => void;
  onStop: () => void;
}

export function Composer({ busy, disabled, placeholder, onSend, onStop }: Props) {
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);
  const submit = () => {
    if (busy) return onStop();
    const t = text.trim();
    if (!t || disabled) return;
    setText('');
    onSend(t);
    ref.current?.focus();
  };
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={ref}
        value={text}
        data-testid="composer-input"
        placeholder={placeholder}
        disabled={disabled}
        rows={2}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
      />
      <button type="submit" data-testid="send" disabled={disabled && !busy}>
        {busy ? 'Stop' : 'Send'}
      </button>
    </form>
  );
}
