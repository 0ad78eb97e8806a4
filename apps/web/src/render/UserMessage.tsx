/**
 * A user message: its text (long ones collapsed behind "Show more"), Copy, and Edit — which puts the
 * text back in a box and, on Save, replaces the message and answers it again.
 */
import { useState } from 'react';

import type { ChatMessage, LoosePart } from '../lib/types.ts';
import { CopyButton } from './CodeBlock.tsx';

/** Longer than this (characters or lines) starts collapsed. */
const LONG_CHARS = 700;
const LONG_LINES = 12;

interface Props {
  message: ChatMessage;
  onEdit?: (messageId: string, text: string) => void;
}

export function UserMessage({ message, onEdit }: Props) {
  const text = (message.parts as unknown as LoosePart[]).map((p) => (p.type === 'text' ? String(p.text ?? '') : '')).join('');
  const long = text.length > LONG_CHARS || text.split('\n').length > LONG_LINES;
  const [expanded, setExpanded] = useState(false);
  const [draft, setDraft] = useState<string>();

  if (draft !== undefined)
    return (
      <div className={`msg ${message.role} editing`} data-testid="message" data-role={message.role}>
        <form
          className="edit-form"
          onSubmit={(e) => {
            e.preventDefault();
            const t = draft.trim();
            if (!t) return;
            setDraft(undefined);
            onEdit?.(message.id, t);
          }}
        >
          <label className="sr-only" htmlFor={`edit-${message.id}`}>
            Edit your message
          </label>
          <textarea
            id={`edit-${message.id}`}
            value={draft}
            rows={Math.min(10, draft.split('\n').length + 1)}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setDraft(undefined);
            }}
            data-testid="edit-input"
            // biome-ignore lint/a11y/noAutofocus: the reader just asked to edit this text
            autoFocus
          />
          <div className="edit-actions">
            <button type="button" onClick={() => setDraft(undefined)}>
              Cancel
            </button>
            <button type="submit" className="primary" data-testid="edit-save">
              Save and send
            </button>
          </div>
        </form>
      </div>
    );

  return (
    <div className={`msg ${message.role}`} data-testid="message" data-role={message.role} data-message-id={message.id}>
      <div className={`user-text${long && !expanded ? ' clamped' : ''}`}>{text}</div>
      <div className="msg-actions user-actions">
        {long ? (
          <button type="button" className="link-button" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
            {expanded ? 'Show less' : 'Show more'}
          </button>
        ) : null}
        {text ? <CopyButton text={text} label="Copy message" className="link-button" /> : null}
        {onEdit ? (
          <button type="button" className="link-button" onClick={() => setDraft(text)} data-testid="edit">
            Edit
          </button>
        ) : null}
      </div>
    </div>
  );
}
