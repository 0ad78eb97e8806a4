/**
 * A stock assistant-ui app on the gateway: `useChatRuntime` with its own `AssistantChatTransport`,
 * assistant-ui's primitives, and the two adapters assistant-ui documents for keeping threads in your
 * own database — a `RemoteThreadListAdapter` (the thread list: the gateway's chats) and a history
 * adapter (a thread's messages: the gateway's history). Nothing here is Switchboard code: it is what
 * an assistant-ui user writes against the gateway's REST routes. stock-assistant-ui.test.ts bundles
 * it and loads it into Chromium; `?chat=` opens a chat, `?agent=` picks the agent.
 *
 * A reload mid-run resumes with the transport's documented `resumable` option: the gateway names
 * each stream with `x-resumable-stream-id` (the run id), the transport keeps it in sessionStorage
 * until the stream's `finish`, and after a reload resumes the run at `/api/runs/<id>/stream`.
 */
import {
  AssistantRuntimeProvider,
  AuiConfig,
  ComposerPrimitive,
  defineToolkit,
  ErrorPrimitive,
  MessagePrimitive,
  type RemoteThreadListAdapter,
  type ThreadHistoryAdapter,
  ThreadListItemPrimitive,
  ThreadListPrimitive,
  ThreadPrimitive,
  type ToolCallMessagePartProps,
  Tools,
  useAui,
  useAuiState,
  useRemoteThreadListRuntime,
} from '@assistant-ui/react';
import { AssistantChatTransport, createResumableSessionStorage, useChatRuntime } from '@assistant-ui/react-ai-sdk';
import { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai';
import { useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.search);
const agent = params.get('agent') ?? undefined;

interface GatewayChat {
  id: string;
  title: string | null;
}

const json = async <T,>(url: string, init?: RequestInit): Promise<T> => {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status}`);
  return (await res.json()) as T;
};
const chatUrl = (id: string) => `/api/chats/${encodeURIComponent(id)}`;
/**
 * The stored chat, or undefined before its first message (the gateway creates it then). Read from
 * the chat list: a thread asked for before its first message is not an error (`GET /api/chats/:id`
 * would answer 404, which the browser logs).
 */
const storedChat = async (id: string): Promise<GatewayChat | undefined> =>
  (await json<{ chats: GatewayChat[] }>('/api/chats')).chats.find((c) => c.id === id);

/** The thread list is the gateway's chat list; a thread's remote id is its chat id. */
const threadList: RemoteThreadListAdapter = {
  async list() {
    const { chats } = await json<{ chats: GatewayChat[] }>('/api/chats');
    return { threads: chats.map((c) => ({ status: 'regular' as const, remoteId: c.id, title: c.title ?? undefined })) };
  },
  // The gateway creates a chat with its first message: a new thread only needs an id.
  async initialize() {
    return { remoteId: crypto.randomUUID() };
  },
  async fetch(remoteId) {
    const chat = await storedChat(remoteId);
    return { status: 'regular', remoteId, title: chat?.title ?? undefined };
  },
  async rename(remoteId, title) {
    await json(chatUrl(remoteId), { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
  },
  async delete(remoteId) {
    await fetch(chatUrl(remoteId), { method: 'DELETE' });
  },
  // The gateway has no archive.
  async archive() {
    throw new Error('The gateway does not archive chats');
  },
  // The gateway titles a chat itself (from its first message): the title is the stored one, none
  // while the first run has not started (assistant-ui asks again when it ends).
  async generateTitle(remoteId) {
    const title = (await storedChat(remoteId))?.title;
    return new ReadableStream({
      start(controller) {
        if (title) {
          controller.enqueue({ type: 'part-start', part: { type: 'text' }, path: [] });
          controller.enqueue({ type: 'text-delta', textDelta: title, path: [0] });
          controller.enqueue({ type: 'part-finish', path: [0] });
        }
        controller.close();
      },
    });
  },
};

/** One thread's runtime: the AI SDK chat, with the gateway's history and a resumable transport. */
function useGatewayThreadRuntime() {
  const aui = useAui();
  const transport = useMemo(
    () =>
      new AssistantChatTransport({
        body: { agent },
        resumable: {
          // One key per thread, read when used: a new thread gets its remote id before it sends.
          storage: createResumableSessionStorage({
            key: () => {
              const item = aui.threadListItem.getState();
              return `aui-resumable-stream-id:${item.remoteId ?? item.id}`;
            },
          }),
          resumeApi: (runId) => `/api/runs/${runId}/stream?protocol=ai-sdk`,
        },
      }),
    [aui],
  );
  const history = useMemo<ThreadHistoryAdapter>(
    () => ({
      async load() {
        return { messages: [] };
      },
      async append() {},
      withFormat: (fmt) => ({
        async load() {
          const { remoteId } = aui.threadListItem.getState();
          if (!remoteId) return { messages: [] };
          // A message still streaming is left out: the resumed stream brings it.
          const messages = await json<UIMessage[]>(`${chatUrl(remoteId)}/messages?includePending=false`);
          return {
            messages: messages.map(({ id, ...content }, i) =>
              fmt.decode({ id, parent_id: i === 0 ? null : messages[i - 1].id, format: fmt.format, content: content as never }),
            ),
          };
        },
        // The gateway stores every message of a run itself.
        async append() {},
      }),
    }),
    [aui],
  );
  return useChatRuntime({
    transport,
    adapters: { history },
    // Approvals and frontend tool outputs go back to the gateway as soon as they are complete.
    sendAutomaticallyWhen: (o) => lastAssistantMessageIsCompleteWithApprovalResponses(o) || lastAssistantMessageIsCompleteWithToolCalls(o),
  });
}

function ToolCall({ toolName, args, result, approval, respondToApproval }: ToolCallMessagePartProps) {
  const waiting = approval !== undefined && approval.approved === undefined;
  return (
    <div data-tool={toolName}>
      <code>
        {toolName}({JSON.stringify(args)})
      </code>
      {result !== undefined && <output> → {typeof result === 'string' ? result : JSON.stringify(result)}</output>}
      {approval?.approved === false && <em> denied</em>}
      {waiting && (
        <>
          <button type="button" onClick={() => void respondToApproval({ approved: true })}>
            Approve
          </button>
          <button type="button" onClick={() => void respondToApproval({ approved: false, reason: 'no' })}>
            Deny
          </button>
        </>
      )}
    </div>
  );
}

/** The frontend tool the demo agent's `location` asks for. */
const toolkit = defineToolkit({
  get_location: {
    type: 'frontend',
    description: "The user's location",
    parameters: { type: 'object', properties: {} },
    execute: async () => 'Paris',
    render: ToolCall,
  },
});
const config = AuiConfig({ tools: Tools({ toolkit }) });

function Message() {
  const role = useAuiState((s) => s.message.role);
  return (
    <MessagePrimitive.Root data-role={role}>
      <div data-parts>
        <MessagePrimitive.Parts components={{ tools: { Fallback: ToolCall } }} />
      </div>
      <MessagePrimitive.Error>
        <ErrorPrimitive.Root data-testid="error">
          <ErrorPrimitive.Message />
        </ErrorPrimitive.Root>
      </MessagePrimitive.Error>
    </MessagePrimitive.Root>
  );
}

/** The runtime's cancel only closes the connection (the run goes on): the gateway's stop route ends the run. */
function Stop() {
  const aui = useAui();
  const stop = () => {
    const { remoteId } = aui.threadListItem.getState();
    if (remoteId) void fetch(`/api/chat/${encodeURIComponent(remoteId)}/stop`, { method: 'POST' });
    aui.thread().cancelRun();
  };
  return (
    <button type="button" onClick={stop}>
      Stop
    </button>
  );
}

function Thread() {
  const running = useAuiState((s) => s.thread.isRunning);
  const loading = useAuiState((s) => s.thread.isLoading);
  return (
    <ThreadPrimitive.Root>
      <output data-testid="status">{loading ? 'loading' : running ? 'running' : 'ready'}</output>
      <ThreadPrimitive.Viewport>
        <ThreadPrimitive.Messages>{() => <Message />}</ThreadPrimitive.Messages>
      </ThreadPrimitive.Viewport>
      <ComposerPrimitive.Root>
        <ComposerPrimitive.Input aria-label="Message" />
        <ComposerPrimitive.Send>Send</ComposerPrimitive.Send>
      </ComposerPrimitive.Root>
      <Stop />
    </ThreadPrimitive.Root>
  );
}

function App() {
  // The open chat lives in the URL: `threadId` in, `onThreadIdChange` out.
  const [chat, setChat] = useState(params.get('chat') ?? undefined);
  const runtime = useRemoteThreadListRuntime({
    adapter: threadList,
    runtimeHook: useGatewayThreadRuntime,
    threadId: chat,
    onThreadIdChange: (id) => {
      setChat(id);
      const url = new URL(location.href);
      if (id) url.searchParams.set('chat', id);
      else url.searchParams.delete('chat');
      history.replaceState(null, '', url);
    },
  });
  return (
    <AssistantRuntimeProvider runtime={runtime} config={config}>
      <ThreadListPrimitive.Root>
        <ThreadListPrimitive.Items>
          {() => (
            <ThreadListItemPrimitive.Root data-testid="thread">
              <ThreadListItemPrimitive.Trigger>
                <ThreadListItemPrimitive.Title fallback="New chat" />
              </ThreadListItemPrimitive.Trigger>
            </ThreadListItemPrimitive.Root>
          )}
        </ThreadListPrimitive.Items>
      </ThreadListPrimitive.Root>
      <Thread />
    </AssistantRuntimeProvider>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
