/**
 * The chat list: newest first, each with its date; a search box; rename in place; delete with a
 * confirmation (the ✕ asks, a second button deletes).
 */
import { useState } from 'react';

import type { Fetched } from '../lib/api.ts';
import { chatDate } from '../lib/format.ts';
import { chatPath } from '../lib/route.ts';
import type { ChatSummary } from '../lib/types.ts';

interface Props {
  chats: Fetched<ChatSummary[]> | undefined;
  currentId: string;
  onOpen: (chatId: string) => void;
  onRename: (chatId: string, title: string) => Promise<boolean>;
  onDelete: (chatId: string) => Promise<void>;
}

const titleOf = (c: ChatSummary) => c.title || 'Untitled chat';

function Item({ chat, current, onOpen, onRename, onDelete }: { chat: ChatSummary; current: boolean } & Omit<Props, 'chats' | 'currentId'>) {
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm'>('view');
  const [draft, setDraft] = useState('');
  const title = titleOf(chat);
  if (mode === 'rename')
    return (
      <li className="chat-item editing">
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const t = draft.trim();
            if (t && t !== title && !(await onRename(chat.id, t))) return;
            setMode('view');
          }}
        >
          <label className="sr-only" htmlFor={`rename-${chat.id}`}>
            New name for {title}
          </label>
          <input
            id={`rename-${chat.id}`}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setMode('view');
            }}
            data-testid="rename-input"
            // biome-ignore lint/a11y/noAutofocus: the reader just asked to rename this chat
            autoFocus
          />
        </form>
      </li>
    );
  if (mode === 'confirm')
    return (
      <li className="chat-item confirm" data-testid="confirm-delete">
        <span className="small">Delete “{title}”?</span>
        <span>
          <button type="button" className="danger" onClick={() => void onDelete(chat.id)} data-testid="confirm-delete-yes">
            Delete
          </button>{' '}
          <button
            type="button"
            onClick={() => setMode('view')}
            // biome-ignore lint/a11y/noAutofocus: focus goes to the safe choice
            autoFocus
          >
            Keep
          </button>
        </span>
      </li>
    );
  return (
    <li className={`chat-item${current ? ' on' : ''}`}>
      <a
        href={chatPath(chat.id)}
        aria-current={current ? 'page' : undefined}
        onClick={(e) => {
          e.preventDefault();
          onOpen(chat.id);
        }}
        title={chat.updatedAt ? new Date(chat.updatedAt).toLocaleString() : undefined}
      >
        <span className="chat-title">{title}</span>
        {chat.updatedAt ? <span className="chat-date">{chatDate(chat.updatedAt)}</span> : null}
      </a>
      <span className="chat-actions">
        <button
          type="button"
          className="icon-button"
          aria-label={`Rename chat ${title}`}
          onClick={() => {
            setDraft(title);
            setMode('rename');
          }}
          data-testid="rename-chat"
        >
          ✎
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={`Delete chat ${title}`}
          onClick={() => setMode('confirm')}
          data-testid="delete-chat"
        >
          ✕
        </button>
      </span>
    </li>
  );
}

export function ChatList({ chats, currentId, onOpen, onRename, onDelete }: Props) {
  const [query, setQuery] = useState('');
  const list = chats?.ok ? chats.data : [];
  const q = query.trim().toLowerCase();
  const shown = q ? list.filter((c) => titleOf(c).toLowerCase().includes(q)) : list;
  return (
    <nav className="chat-list" data-testid="chat-list" aria-label="Chats">
      <h2 className="side-head">Chats</h2>
      {list.length > 5 ? (
        <>
          <label className="sr-only" htmlFor="chat-search">
            Search chats
          </label>
          <input id="chat-search" type="search" placeholder="Search chats" value={query} onChange={(e) => setQuery(e.target.value)} />
        </>
      ) : null}
      {chats === undefined ? <div className="muted small">Loading…</div> : null}
      {chats && !chats.ok ? (
        <div className="muted small">
          {chats.missing ? 'No chat list on this server (GET /api/chats).' : `Chats unavailable: ${chats.message}`}
        </div>
      ) : null}
      {chats?.ok && list.length === 0 ? <div className="muted small">No chats yet.</div> : null}
      {q && shown.length === 0 ? <div className="muted small">No chat matches “{query}”.</div> : null}
      <ul>
        {shown.map((c) => (
          <Item key={c.id} chat={c} current={c.id === currentId} onOpen={onOpen} onRename={onRename} onDelete={onDelete} />
        ))}
      </ul>
    </nav>
  );
}
