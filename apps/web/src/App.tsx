/**
 * The app shell: chats on the left (from `GET /api/chats`), the conversation in the middle, the
 * inspector on the right. The chat id lives in the URL (`/c/<chatId>`): a reload or a shared link
 * reopens the conversation from history (`GET /api/chats/:id/messages?protocol=ai-sdk`).
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { AiSdkChat } from './chat/AiSdkChat.tsx';
import { DEMO_AGENT, deleteChat, type Fetched, listAgents, listChats, loadHistory } from './lib/api.ts';
import { newId } from './lib/ids.ts';
import { chatIdOf, chatPath, usePath } from './lib/route.ts';
import type { AgentInfo, ChatMessage, ChatSummary, Mode } from './lib/types.ts';

// Loaded on first use: the AG-UI client (rxjs, protobuf) and the inspector (the encoders) are most of the code.
const AgUiChat = lazy(() => import('./chat/AgUiChat.tsx').then((m) => ({ default: m.AgUiChat })));
const Inspector = lazy(() => import('./inspector/Inspector.tsx').then((m) => ({ default: m.Inspector })));

function stored<T extends string>(key: string, fallback: T, allowed?: readonly T[]): T {
  try {
    const v = localStorage.getItem(key) as T | null;
    if (v && (!allowed || allowed.includes(v))) return v;
  } catch {
    // storage disabled
  }
  return fallback;
}

function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage disabled
  }
}

type History = { state: 'loading' } | { state: 'ready'; messages: ChatMessage[]; note?: string };

function Empty({ agent }: { agent: AgentInfo }) {
  return (
    <div className="empty" data-testid="empty">
      <h2>Switchboard</h2>
      <p>
        Chat with <b>{agent.name}</b>
        {agent.description ? ` — ${agent.description}` : ''}.
      </p>
      {agent.name === 'demo' ? (
        <p className="muted">
          Try <code>hi</code>, <code>step</code>, <code>tool London</code>, <code>text hello **world**</code>, <code>code print(1)</code> or{' '}
          <code>error</code>. A chart: <code>{'text <<{"type":"line","title":"demo","data":[1,3,2,5,4]}>>'}</code>
        </p>
      ) : null}
    </div>
  );
}

export function App() {
  const [path, navigate] = usePath();
  const urlChatId = chatIdOf(path);
  // A new chat gets its id up front; the URL takes it when the first message is sent.
  const [draftId, setDraftId] = useState(newId);
  const chatId = urlChatId ?? draftId;
  // The chat this page started itself: its URL appearing must not reload it from history.
  const adopted = useRef<string | undefined>(undefined);

  const [mode, setMode] = useState<Mode>(() => stored<Mode>('switchboard.mode', 'ai-sdk', ['ai-sdk', 'ag-ui']));
  const [agents, setAgents] = useState<AgentInfo[]>([DEMO_AGENT]);
  const [agentsNote, setAgentsNote] = useState<string>();
  const [agentName, setAgentName] = useState<string>(() => stored<string>('switchboard.agent', 'demo'));
  const [chats, setChats] = useState<Fetched<ChatSummary[]> | undefined>();
  const [history, setHistory] = useState<History>({ state: 'loading' });
  const [inspecting, setInspecting] = useState<{ messageId?: string } | null>(null);
  const [messagesForInspector, setMessagesForInspector] = useState<ChatMessage[]>([]);

  const agent = agents.find((a) => a.name === agentName) ?? agents.find((a) => a.name === 'demo') ?? agents[0];

  useEffect(() => {
    void listAgents().then(({ agents, fallback }) => {
      setAgents(agents);
      setAgentsNote(fallback ? 'The server has no agent list (GET /api/agents); using the demo agent.' : undefined);
    });
  }, []);

  const refreshChats = useCallback(() => {
    void listChats().then(setChats);
  }, []);
  useEffect(refreshChats, [refreshChats]);

  // Load the conversation whenever the chat (URL) changes.
  useEffect(() => {
    if (!urlChatId) {
      setHistory({ state: 'ready', messages: [] });
      return;
    }
    if (urlChatId === adopted.current) return;
    adopted.current = undefined;
    let stop = false;
    setHistory({ state: 'loading' });
    void loadHistory(urlChatId).then((h) => {
      if (stop) return;
      if (h.ok) setHistory({ state: 'ready', messages: h.data });
      else
        setHistory({
          state: 'ready',
          messages: [],
          note: h.missing
            ? 'No stored history for this chat (the server has no history for it, or no history route).'
            : `Could not load the history: ${h.message}`,
        });
    });
    return () => {
      stop = true;
    };
  }, [urlChatId]);

  useEffect(() => {
    window.__switchboard = { ...window.__switchboard, chatId, mode, historyState: history.state };
  }, [chatId, mode, history.state]);

  const onSend = useCallback(() => {
    if (urlChatId) return;
    adopted.current = chatId;
    navigate(chatPath(chatId), true);
  }, [urlChatId, chatId, navigate]);

  const onRunEnd = useCallback(() => {
    window.__switchboard = { ...window.__switchboard, runsEnded: Number(window.__switchboard?.runsEnded ?? 0) + 1 };
    refreshChats();
    // The inspector re-reads the run once it ended.
    setMessagesForInspector((m) => [...m]);
  }, [refreshChats]);

  const newChat = () => {
    setDraftId(newId());
    setInspecting(null);
    navigate('/');
  };

  const onInspect = useCallback(
    async (messageId: string) => {
      const h = await loadHistory(chatId);
      setMessagesForInspector(h.ok ? h.data : []);
      setInspecting({ messageId });
    },
    [chatId],
  );
  const inspectedMessage = useMemo(
    () =>
      inspecting?.messageId
        ? (messagesForInspector.find((m) => m.id === inspecting.messageId) ?? { id: inspecting.messageId, role: 'assistant', parts: [] })
        : undefined,
    [inspecting, messagesForInspector],
  ) as ChatMessage | undefined;

  const Chat = mode === 'ag-ui' ? AgUiChat : AiSdkChat;
  return (
    <div className={`app${inspecting ? ' with-inspector' : ''}`}>
      <nav className="sidebar">
        <button type="button" className="new-chat" onClick={newChat} data-testid="new-chat">
          + New chat
        </button>
        <label className="field">
          Agent
          <select
            value={agent.name}
            onChange={(e) => {
              setAgentName(e.target.value);
              store('switchboard.agent', e.target.value);
            }}
            data-testid="agent-picker"
          >
            {agents.map((a) => (
              <option key={a.name} value={a.name} title={a.description}>
                {a.name}
                {a.framework ? ` (${a.framework})` : ''}
              </option>
            ))}
          </select>
        </label>
        {agentsNote ? <div className="muted small">{agentsNote}</div> : null}
        <fieldset className="field mode">
          <legend>Protocol</legend>
          {(['ai-sdk', 'ag-ui'] as const).map((m) => (
            <label key={m}>
              <input
                type="radio"
                name="mode"
                checked={mode === m}
                onChange={() => {
                  setMode(m);
                  store('switchboard.mode', m);
                }}
                data-testid={`mode-${m}`}
              />
              {m === 'ai-sdk' ? 'AI SDK (useChat)' : 'AG-UI (HttpAgent)'}
            </label>
          ))}
        </fieldset>
        <div className="chat-list" data-testid="chat-list">
          <div className="muted small">Chats</div>
          {chats === undefined ? <div className="muted small">Loading…</div> : null}
          {chats && !chats.ok ? (
            <div className="muted small">
              {chats.missing ? 'No chat list on this server (GET /api/chats).' : `Chats unavailable: ${chats.message}`}
            </div>
          ) : null}
          {chats?.ok && chats.data.length === 0 ? <div className="muted small">No chats yet.</div> : null}
          {chats?.ok
            ? chats.data.map((c) => (
                <div key={c.id} className={`chat-item${c.id === chatId ? ' on' : ''}`}>
                  <a
                    href={chatPath(c.id)}
                    onClick={(e) => {
                      e.preventDefault();
                      setInspecting(null);
                      navigate(chatPath(c.id));
                    }}
                    title={c.updatedAt ? new Date(c.updatedAt).toLocaleString() : undefined}
                  >
                    {c.title || c.id}
                  </a>
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Delete chat ${c.title ?? c.id}`}
                    onClick={async () => {
                      if (await deleteChat(c.id)) {
                        if (c.id === chatId) newChat();
                        refreshChats();
                      }
                    }}
                  >
                    ✕
                  </button>
                </div>
              ))
            : null}
        </div>
      </nav>
      <main className="chat">
        <header className="chat-head">
          <span className="muted small" data-testid="chat-id">
            {urlChatId ? `chat ${urlChatId}` : 'new chat'} · {mode === 'ai-sdk' ? 'AI SDK' : 'AG-UI'} · {agent.name}
          </span>
          <button type="button" onClick={() => (inspecting ? setInspecting(null) : setInspecting({}))} data-testid="toggle-inspector">
            {inspecting ? 'Hide inspector' : 'Inspector'}
          </button>
        </header>
        {history.state === 'ready' && history.note ? (
          <div className="notice" data-testid="history-note">
            {history.note}
          </div>
        ) : null}
        <Suspense fallback={<div className="messages muted">Loading…</div>}>
          {history.state === 'loading' ? (
            <div className="messages muted">Loading the conversation…</div>
          ) : (
            <Chat
              key={`${chatId}:${mode}`}
              chatId={chatId}
              initialMessages={history.messages}
              agent={agent.name}
              onSend={onSend}
              onRunEnd={onRunEnd}
              onInspect={onInspect}
              empty={<Empty agent={agent} />}
            />
          )}
        </Suspense>
      </main>
      {inspecting ? (
        <Suspense fallback={<aside className="inspector muted">Loading the inspector…</aside>}>
          <Inspector
            key={`${chatId}:${inspecting.messageId ?? ''}`}
            chatId={chatId}
            {...(inspectedMessage ? { message: inspectedMessage } : {})}
            onClose={() => setInspecting(null)}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
