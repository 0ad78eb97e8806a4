/**
 * The OpenAPI 3.1 description of the gateway's HTTP surface, served at `GET /openapi.json` and
 * kept in docs/openapi.json (a test checks both against the app's routes). Regenerate the file with
 *
 *     node packages/server/src/server/openapi.ts > docs/openapi.json && biome format --write docs/openapi.json
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const ref = (name: string): Obj => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Obj, description: string): Obj => ({ description, content: { 'application/json': { schema } } });
const sse = (description: string): Obj => ({
  description,
  headers: {
    'x-switchboard-run-id': { description: 'The run the stream belongs to.', schema: { type: 'string' } },
    'x-switchboard-chat-id': { description: 'The chat (thread, session) of the run.', schema: { type: 'string' } },
    'x-resumable-stream-id': {
      description: "The run id again, as assistant-ui's resumable transport reads it (resume at `/api/runs/{runId}/stream`).",
      schema: { type: 'string' },
    },
  },
  content: { 'text/event-stream': { schema: { type: 'string', description: 'SSE; every event has an `id:` (`<seq>` or `<seq>.<k>`).' } } },
});
const error = (description: string): Obj => json(ref('Error'), description);
const pathId = (name: string, description: string): Obj => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const query = (name: string, description: string, schema: Obj): Obj => ({ name, in: 'query', required: false, description, schema });
const lastEventId: Obj = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description: 'Resume after this SSE event id (also `?lastEventId=`).',
  schema: { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
};
const onDisconnect: Obj = {
  name: 'x-switchboard-on-disconnect',
  in: 'header',
  required: false,
  description:
    "This request's disconnect policy: `continue` keeps the run going when the request goes away, `abort` stops it (default: the server's, `continue` unless configured).",
  schema: { type: 'string', enum: ['continue', 'abort'] },
};
const common: Obj = {
  '400': error('Malformed request: the message and `issues` say what is wrong.'),
  '401': error('Authentication required (tokens are configured) or the token is invalid.'),
  '429': error('Rate limit: wait `Retry-After` seconds.'),
};
const abortSent = json({ type: 'object', properties: { runId: { type: 'string' }, aborting: { const: true } } }, 'Abort sent.');
const notFound = error('No such chat or run — or it belongs to another token.');
const storeFault = error(
  'A store read failed before the stream began: `store read failed: <reason>`, code `store_unavailable` (retry once the store is back). One failing later ends the stream with its protocol’s error ending.',
);
const protocols = ['ai-sdk', 'ag-ui', 'ws', 'dsagent', 'canonical'];

/** Builds the document (pure: the same every time). */
export function openApiDocument(version = '0.1.0'): Obj {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard gateway',
      version,
      description:
        "Any agent framework's stream in, one canonical event model, any UI protocol out. Runs are recorded in the store as they stream; every stream can be resumed (`Last-Event-ID`), from any instance. See docs/gateway.md.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:3000' }],
    security: [{}, { bearer: [] }],
    tags: [
      { name: 'chat', description: 'Streaming endpoints for UI protocols.' },
      { name: 'history', description: 'Chats, messages, runs and their events.' },
      { name: 'meta', description: 'Health, agents, this description.' },
    ],
    paths: {
      '/healthz': {
        get: {
          tags: ['meta'],
          summary: 'Health check (no authentication).',
          security: [{}],
          responses: {
            '200': json({ type: 'object', properties: { ok: { const: true } } }, 'The server and its store are up.'),
            '503': error('The store does not answer a write and a read; the message says why.'),
          },
        },
      },
      '/openapi.json': {
        get: {
          tags: ['meta'],
          summary: 'This document (no authentication).',
          security: [{}],
          responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1 document.') },
        },
      },
      '/api/agents': {
        get: {
          tags: ['meta'],
          summary: 'The agents that can run.',
          parameters: [query('all', 'Also list disabled agents, with `enabled` and `disabledReason`.', { type: 'boolean' })],
          responses: { '200': json({ type: 'array', items: ref('Agent') }, 'Agents.'), ...common },
        },
      },
      '/api/chat': {
        post: {
          tags: ['chat'],
          summary: 'AI SDK chat (`useChat` / `DefaultChatTransport`): starts a run, answers its UI message stream.',
          description:
            'The run is recorded as it streams. By default it goes on when this request goes away (a reload, a drop, or AI SDK `stop()`): resume it with `GET /api/chat/{id}/stream`, stop it with `POST /api/chat/{id}/stop`. With `x-switchboard-on-disconnect: abort` the run is aborted with this request.',
          parameters: [query('agent', 'Agent to run (wins over the body field).', { type: 'string' }), onDisconnect],
          requestBody: { required: true, content: { 'application/json': { schema: ref('ChatRequest') } } },
          responses: {
            '200': sse('AI SDK UI message stream (`x-vercel-ai-ui-message-stream: v1`), ending with `data: [DONE]`.'),
            ...common,
            '404': notFound,
            '409': error(
              'A run in this chat is in progress on another instance and could not be stopped; or an approval answered before (`approval_answered`) or no longer waiting (`approval_stale`).',
            ),
            '413': error('Body larger than the limit.'),
            '503': error('The agent is disabled (e.g. its API key is missing).'),
          },
        },
      },
      '/api/chat/{id}/stream': {
        get: {
          tags: ['chat'],
          summary: "AI SDK reconnect (`resumeStream()`): the chat's run in progress.",
          parameters: [pathId('id', 'Chat id.'), lastEventId],
          responses: {
            '200': sse('The run from its start, or after Last-Event-ID.'),
            '204': {
              description: 'Nothing to resume: no run in progress, or a chat this server has never seen (or the caller cannot see).',
            },
            ...common,
            '503': storeFault,
          },
        },
      },
      '/api/chat/{id}/stop': {
        post: {
          tags: ['chat'],
          summary: "Stops the chat's run in progress (what an app calls beside `useChat`'s `stop()` or HttpAgent's `abortRun()`).",
          parameters: [pathId('id', 'Chat id (AG-UI: the thread id).')],
          responses: {
            '202': abortSent,
            '204': { description: 'Nothing to stop: no run in progress, or a chat this server has never seen (or the caller cannot see).' },
            ...common,
            '409': error('No reachable instance runs it.'),
          },
        },
      },
      '/api/agui': {
        post: {
          tags: ['chat'],
          summary: 'AG-UI (`@ag-ui/client` HttpAgent, CopilotKit): RunAgentInput in, AG-UI events out.',
          description:
            "`threadId` is the chat, `runId` the run; the agent comes from `?agent=` or `forwardedProps.agent`. A `runId` that exists answers that run's stream. `resume` entries and `tool` messages answer what the thread's previous run ended waiting for (a continuation run, docs/gateway.md).",
          parameters: [query('agent', 'Agent to run.', { type: 'string' }), lastEventId, onDisconnect],
          requestBody: { required: true, content: { 'application/json': { schema: ref('RunAgentInput') } } },
          responses: {
            '200': sse('AG-UI events (RUN_STARTED … RUN_FINISHED / RUN_ERROR).'),
            ...common,
            '404': notFound,
            '409': error('The runId exists in another thread; or an approval answered before or no longer waiting.'),
            '413': error('Body larger than the limit.'),
            '503': error('The agent is disabled.'),
          },
        },
      },
      '/api/chats': {
        get: {
          tags: ['history'],
          summary: "The caller's chats, most recently updated first.",
          parameters: [
            query('limit', 'Page size (1–200, default 50).', { type: 'integer', minimum: 1, maximum: 200 }),
            query('offset', 'Chats to skip.', { type: 'integer', minimum: 0 }),
          ],
          responses: { '200': json({ type: 'object', properties: { chats: { type: 'array', items: ref('Chat') } } }, 'Chats.'), ...common },
        },
      },
      '/api/chats/{id}': {
        get: {
          tags: ['history'],
          summary: 'A chat and its runs.',
          parameters: [pathId('id', 'Chat id.')],
          responses: {
            '200': json({ type: 'object', properties: { chat: ref('Chat'), runs: { type: 'array', items: ref('Run') } } }, 'The chat.'),
            ...common,
            '404': notFound,
          },
        },
        patch: {
          tags: ['history'],
          summary: 'Renames a chat.',
          parameters: [pathId('id', 'Chat id.')],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['title'], properties: { title: { type: 'string', minLength: 1, maxLength: 200 } } },
              },
            },
          },
          responses: {
            '200': json({ type: 'object', properties: { chat: ref('Chat') } }, 'The renamed chat.'),
            ...common,
            '404': notFound,
          },
        },
        delete: {
          tags: ['history'],
          summary: 'Deletes a chat with its runs, events and messages (its runs in progress are aborted first).',
          parameters: [pathId('id', 'Chat id.')],
          responses: { '204': { description: 'Deleted.' }, ...common, '404': notFound },
        },
      },
      '/api/chats/{id}/messages': {
        get: {
          tags: ['history'],
          summary: 'The conversation in a protocol.',
          description:
            "`ai-sdk`: a JSON array of AI SDK UIMessages; `ag-ui`: a MESSAGES_SNAPSHOT event with the agent state (`{ type, messages, state }`); `timeline`: thinking timeline items; `dsagent`: DSAgentRunMessages as a DeepSearchAgents client collected them (one message per stream, its final form); `canonical`: user messages and each run's canonical events. A chat the caller cannot see (never created, deleted, or another caller's) has the empty history of the protocol (`[]`, or a MESSAGES_SNAPSHOT with no messages and `{}` as state), so a stock client opening a new chat sees no error.",
          parameters: [
            pathId('id', 'Chat id.'),
            query('protocol', 'History format (default ai-sdk).', {
              type: 'string',
              enum: ['ai-sdk', 'ag-ui', 'timeline', 'dsagent', 'canonical'],
            }),
            query(
              'includePending',
              'Include the message of a run still streaming (default true; false for a client that calls resumeStream()).',
              {
                type: 'boolean',
              },
            ),
          ],
          responses: { '200': json({ oneOf: [{ type: 'array' }, { type: 'object' }] }, 'History.'), ...common },
        },
      },
      '/api/runs/{runId}': {
        get: {
          tags: ['history'],
          summary: 'A run: status, finish reason, last seq.',
          parameters: [pathId('runId', 'Run id.')],
          responses: { '200': json(ref('Run'), 'The run.'), ...common, '404': notFound },
        },
      },
      '/api/runs/{runId}/events': {
        get: {
          tags: ['history'],
          summary: "A run's canonical events (the inspector reads them).",
          parameters: [
            pathId('runId', 'Run id.'),
            query('after', 'Only events with seq > after.', { type: 'integer', minimum: -1 }),
            query('limit', 'At most this many (0 = all).', { type: 'integer', minimum: 0 }),
          ],
          responses: { '200': json({ type: 'array', items: ref('CanonicalEvent') }, 'Events in seq order.'), ...common, '404': notFound },
        },
      },
      '/api/runs/{runId}/stream': {
        get: {
          tags: ['chat'],
          summary: 'A run, live or finished, as SSE in any protocol; resumable.',
          parameters: [
            pathId('runId', 'Run id.'),
            query('protocol', 'Output protocol (default ai-sdk).', { type: 'string', enum: protocols }),
            lastEventId,
          ],
          responses: {
            '200': sse('The run from its start, or after Last-Event-ID, then live until it ends.'),
            ...common,
            '404': notFound,
            '503': storeFault,
          },
        },
      },
      '/api/runs/{runId}/abort': {
        post: {
          tags: ['chat'],
          summary: 'Aborts a run in progress (on whichever instance runs it).',
          parameters: [pathId('runId', 'Run id.')],
          responses: {
            '202': abortSent,
            ...common,
            '404': notFound,
            '409': error('The run has ended, or no reachable instance runs it.'),
          },
        },
      },
      '/ws': {
        get: {
          tags: ['chat'],
          summary: 'WebSocket (the `agent:event` contract): subscribe to sessions, send messages, receive `agent:event` frames.',
          description:
            'Upgrade to a WebSocket. Authenticate with `Authorization: Bearer` or `?access_token=`. Client messages: `subscribe {sessionId, lastSequenceNumber?, lastEventId?}`, `unsubscribe {sessionId}`, `message {sessionId?, content, agent?, messageId?}`, `abort {sessionId | runId}`, `ping`. Server envelopes: `{event, data}` with event `agent:event`, `subscribed`, `unsubscribed`, `run:started`, `aborted`, `error`, `pong`. See docs/gateway.md.',
          parameters: [query('access_token', 'Bearer token, for clients that cannot set headers.', { type: 'string' })],
          responses: {
            '101': { description: 'Switching protocols.' },
            '401': error('Authentication required or invalid token.'),
            '403': error('Origin not allowed.'),
            '426': error('Not a WebSocket upgrade request.'),
            '429': error('Rate limit.'),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from the config (`tokens`) or SWITCHBOARD_TOKENS.' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message'],
              properties: {
                message: { type: 'string' },
                code: { type: 'string' },
                issues: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
              },
            },
          },
        },
        Agent: {
          type: 'object',
          required: ['name', 'framework'],
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            framework: { type: 'string' },
            enabled: { type: 'boolean' },
            disabledReason: { type: 'string' },
          },
        },
        ChatRequest: {
          type: 'object',
          required: ['messages'],
          properties: {
            id: { type: 'string', description: 'Chat id (created when new).' },
            messages: { type: 'array', minItems: 1, items: { type: 'object', required: ['id', 'role', 'parts'] } },
            trigger: { type: 'string', enum: ['submit-message', 'regenerate-message'] },
            messageId: { type: 'string' },
            agent: { type: 'string', description: 'Agent to run (default: the server default, `demo`).' },
            tools: {
              type: 'array',
              description: 'Frontend tools the client runs itself (the agent may call them).',
              items: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } },
              },
            },
          },
        },
        RunAgentInput: {
          type: 'object',
          required: ['threadId', 'runId', 'messages'],
          properties: {
            threadId: { type: 'string' },
            runId: { type: 'string' },
            messages: { type: 'array', items: { type: 'object', required: ['id', 'role'] } },
            state: {},
            tools: { type: 'array' },
            context: { type: 'array' },
            forwardedProps: { type: 'object', properties: { agent: { type: 'string' } } },
            resume: {
              type: 'array',
              description: 'Answers to the interrupts (approvals included) the previous run ended with.',
              items: {
                type: 'object',
                required: ['interruptId', 'status'],
                properties: { interruptId: { type: 'string' }, status: { type: 'string', enum: ['resolved', 'cancelled'] }, payload: {} },
              },
            },
          },
        },
        Chat: {
          type: 'object',
          required: ['id', 'createdAt', 'updatedAt'],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            metadata: { type: 'object' },
            createdAt: { type: 'integer' },
            updatedAt: { type: 'integer' },
          },
        },
        Run: {
          type: 'object',
          required: ['id', 'chatId', 'status', 'lastSeq'],
          properties: {
            id: { type: 'string' },
            chatId: { type: 'string' },
            messageId: { type: 'string' },
            userMessageId: { type: 'string' },
            status: { type: 'string', enum: ['running', 'complete', 'error', 'aborted'] },
            finishReason: { type: 'string' },
            lastSeq: { type: 'integer' },
            createdAt: { type: 'integer' },
            updatedAt: { type: 'integer' },
          },
        },
        CanonicalEvent: {
          type: 'object',
          required: ['type', 'runId', 'seq', 'ts'],
          description: 'See docs/events.md and packages/core/schema.',
          properties: { type: { type: 'string' }, runId: { type: 'string' }, seq: { type: 'integer' }, ts: { type: 'integer' } },
        },
      },
    },
  };
}

if (import.meta.main) process.stdout.write(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
