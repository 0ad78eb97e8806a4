/**
 * The app shell: chats on the left (from `GET /api/chats`), the conversation in the middle, the
 * inspector on the right. The chat id lives in the URL (`/c/<chatId>`): a reload or a shared link
 * reopens the conversation from history (`GET /api/chats/:id/messages?protocol=ai-sdk`) with the
 * agent it was talking to (`GET /api/chats/:id`), and resumes its answer if one is still streaming.
 *
 * Below 900 px the sidebar is a drawer behind the header's "Chats" button; above, it can be hidden.
 * Keyboard: a skip link to the message box, which has focus whenever a chat opens; Escape closes
 * the inspector or the drawer (and, in the message box, stops the answer).
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { AiSdkChat } from './chat/AiSdkChat.tsx';
import type { ComposerHandle } from './chat/Composer.tsx';
import {
  type ChatDetails,
  DEMO_AGENT,
  deleteChat,
  type Fetched,
  listAgents,
  listChats,
  loadChat,
  loadHistory,
  renameChat,
} from './lib/api.ts';
import { newId } from './lib/ids.ts';
import { chatIdOf, chatPath, usePath } from './lib/route.ts';
import { store, stored } from './lib/storage.ts';
import type { AgentInfo, ChatMessage, ChatSummary, Mode } from './lib/types.ts';
import { ChatList } from './shell/ChatList.tsx';
import { Empty } from './shell/Empty.tsx';

// Loaded on first use: the AG-UI client (rxjs, protobuf) and the inspector (the encoders) are most of the code.
const AgUiChat = lazy(() => import('./chat/AgUiChat.tsx').then((m) => ({ default: m.AgUiChat })));
const Inspector = lazy(() => import('./inspector/Inspector.tsx').then((m) => ({ default: m.Inspector })));

type History = { state: 'loading' } | { state: 'ready'; messages: ChatMessage[]; note?: string; details?: ChatDetails };

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
  // The agent of new chats (the last one picked); an existing chat keeps its own.
  const [defaultAgent, setDefaultAgent] = useState<string>(() => stored<string>('switchboard.agent', 'demo'));
  const [chatAgent, setChatAgent] = useState<string>();
  const [chats, setChats] = useState<Fetched<ChatSummary[]> | undefined>();
  const [history, setHistory] = useState<History>({ state: 'loading' });
  const [inspecting, setInspecting] = useState<{ messageId?: string } | null>(null);
  const [messagesForInspector, setMessagesForInspector] = useState<ChatMessage[]>([]);
  const [drawer, setDrawer] = useState(false);
  const [sidebarHidden, setSidebarHidden] = useState(false);
  const [hasMessages, setHasMessages] = useState(false);
  const composer = useRef<ComposerHandle>(null);

  const byName = (name: string | undefined) => agents.find((a) => a.name === name);
  const agent = byName(chatAgent) ?? byName(defaultAgent) ?? byName('demo') ?? agents[0];

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

  // Load the conversation (and the chat's agent, and whether its run still streams) when the URL changes.
  useEffect(() => {
    if (!urlChatId) {
      adopted.current = undefined;
      setHistory({ state: 'ready', messages: [] });
      setChatAgent(undefined);
      return;
    }
    if (urlChatId === adopted.current) return;
    adopted.current = undefined;
    let stop = false;
    setHistory({ state: 'loading' });
    // The chat first, then its history: a run the chat lists as running is resumed by its id (which
    // answers even when it ends meanwhile), and a run it does not list ended before the history was
    // read, so the history holds all of it. Read at once, a run ending between the two reads left a
    // pending answer in the history with nothing to follow it.
    void (async () => {
      const d = await loadChat(urlChatId);
      const h = await loadHistory(urlChatId);
      if (stop) return;
      const details = d.ok ? d.data : undefined;
      setChatAgent(typeof details?.chat.metadata?.agent === 'string' ? details.chat.metadata.agent : undefined);
      if (h.ok) setHistory({ state: 'ready', messages: h.data, ...(details ? { details } : {}) });
      else
        setHistory({
          state: 'ready',
          messages: [],
          note: h.missing
            ? 'No stored history for this chat (the server has no history for it, or no history route).'
            : `Could not load the history: ${h.message}`,
        });
    })();
    return () => {
      stop = true;
    };
  }, [urlChatId]);

  const chatTitle = useMemo(() => {
    if (!urlChatId) return 'New chat';
    const listed = chats?.ok ? chats.data.find((c) => c.id === urlChatId)?.title : undefined;
    return listed ?? (history.state === 'ready' ? history.details?.chat.title : undefined) ?? 'Chat';
  }, [urlChatId, chats, history]);

  useEffect(() => {
    document.title = `${chatTitle} · Switchboard`;
  }, [chatTitle]);

  useEffect(() => {
    window.__switchboard = { ...window.__switchboard, chatId, mode, historyState: history.state, agent: agent.name };
  }, [chatId, mode, history.state, agent.name]);

  // A chat that opens is ready to be typed into.
  // biome-ignore lint/correctness/useExhaustiveDependencies: on every chat or protocol switch, not only when history loads
  useEffect(() => {
    if (history.state === 'ready') composer.current?.focus();
  }, [history.state, chatId, mode]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (drawer) setDrawer(false);
      else if (inspecting) setInspecting(null);
      else return;
      composer.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [drawer, inspecting]);

  const onSend = useCallback(() => {
    setHasMessages(true);
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

  const openChat = (id: string) => {
    setInspecting(null);
    setDrawer(false);
    navigate(chatPath(id));
  };
  const newChat = () => {
    setDraftId(newId());
    setInspecting(null);
    setDrawer(false);
    setHasMessages(false);
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
  const ready = history.state === 'ready' ? history : undefined;
  const chatHasRun = Boolean(urlChatId) || hasMessages;
  return (
    <div className={`app${inspecting ? ' with-inspector' : ''}${drawer ? ' drawer-open' : ''}${sidebarHidden ? ' sidebar-hidden' : ''}`}>
      <a className="skip-link" href="#composer-input">
        Skip to the message box
      </a>
      <aside className="sidebar" id="sidebar" aria-label="Chats and settings">
        <div className="brand">
          <h1>Switchboard</h1>
          <button type="button" className="icon-button drawer-close" aria-label="Close the chat list" onClick={() => setDrawer(false)}>
            ✕
          </button>
        </div>
        <button type="button" className="new-chat primary" onClick={newChat} data-testid="new-chat">
          + New chat
        </button>
        <label className="field">
          Agent
          <select
            value={agent.name}
            onChange={(e) => {
              setDefaultAgent(e.target.value);
              store('switchboard.agent', e.target.value);
              if (chatHasRun) setChatAgent(e.target.value);
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
        <ChatList
          chats={chats}
          currentId={chatId}
          onOpen={openChat}
          onRename={async (id, title) => {
            const r = await renameChat(id, title);
            refreshChats();
            return r.ok;
          }}
          onDelete={async (id) => {
            if (await deleteChat(id)) {
              if (id === chatId) newChat();
              refreshChats();
            }
          }}
        />
      </aside>
      {drawer ? (
        <button type="button" className="scrim" aria-label="Close the chat list" tabIndex={-1} onClick={() => setDrawer(false)} />
      ) : null}
      <main className="chat" id="main">
        <header className="chat-head">
          <button
            type="button"
            className="icon-button menu-button"
            aria-label="Chats"
            aria-controls="sidebar"
            aria-expanded={drawer}
            onClick={() => setDrawer(true)}
            data-testid="open-sidebar"
          >
            ☰
          </button>
          <button
            type="button"
            className="icon-button sidebar-toggle"
            aria-label={sidebarHidden ? 'Show the chat list' : 'Hide the chat list'}
            aria-pressed={!sidebarHidden}
            onClick={() => setSidebarHidden(!sidebarHidden)}
          >
            ☰
          </button>
          <h2 className="chat-title" data-testid="chat-title" title={urlChatId ? `chat ${urlChatId}` : undefined}>
            {chatTitle}
          </h2>
          <span className="muted small chat-meta" data-testid="chat-id">
            {agent.name} · {mode === 'ai-sdk' ? 'AI SDK' : 'AG-UI'}
          </span>
          <button type="button" className="icon-button mobile-new" onClick={newChat} aria-label="New chat" data-testid="new-chat-header">
            +
          </button>
          <button
            type="button"
            onClick={() => (inspecting ? setInspecting(null) : setInspecting({}))}
            data-testid="toggle-inspector"
            aria-expanded={Boolean(inspecting)}
          >
            {inspecting ? 'Hide inspector' : 'Inspector'}
          </button>
        </header>
        {ready?.note ? (
          <div className="notice" data-testid="history-note">
            {ready.note}
          </div>
        ) : null}
        <Suspense fallback={<div className="messages muted">Loading…</div>}>
          {!ready ? (
            <div className="messages muted">Loading the conversation…</div>
          ) : (
            <Chat
              key={`${chatId}:${mode}`}
              chatId={chatId}
              initialMessages={ready.messages}
              {...(ready.details?.runningRunId ? { resumeRunId: ready.details.runningRunId } : {})}
              agent={agent.name}
              onSend={onSend}
              onRunStart={refreshChats}
              onRunEnd={onRunEnd}
              onInspect={onInspect}
              composerRef={composer}
              empty={<Empty agent={agent} onPick={(text) => composer.current?.fill(text)} />}
            />
          )}
        </Suspense>
      </main>
      {inspecting ? (
        <Suspense fallback={<aside className="inspector muted">Loading the inspector…</aside>}>
          <Inspector
            key={`${chatId}:${inspecting.messageId ?? ''}`}
            chatId={chatId}
            hasRun={chatHasRun}
            {...(inspectedMessage ? { message: inspectedMessage } : {})}
            onClose={() => setInspecting(null)}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
