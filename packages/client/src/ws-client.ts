/**
 * A WebSocket client for the `agent:event` contract that survives dropped connections.
 *
 * It subscribes to sessions with `{type: 'subscribe', sessionId, lastSequenceNumber}`; when the socket
 * closes without `close()` being called it reconnects (exponential backoff, bounded retries) and
 * subscribes again with the last sequence number it has seen for each session. Every frame is
 * delivered once: frames are deduplicated by position — the `eventId` (`<runId>:<seq>` or
 * `<runId>:<seq>.<k>`, ordered per run, chunks included), else the `sequenceNumber` — so a server may
 * resend from any earlier point. The one repeat that passes is the contract's persistence update: a
 * frame sent `pending` and sent again, same `eventId`, `persisted` (the UI replaces it by eventId).
 *
 * Messages from the server may be the bare frame, `{type: 'agent:event', event | data: frame}`, or a
 * Socket.IO-style `['agent:event', frame]`; anything else is handed to `onMessage`.
 */
import { type FrameId, parseFrameId } from '@switchboard/core';

/** One `agent:event` frame (loose: the contract's fields plus any extension). */
export type WsFrame = {
  type: string;
  sessionId?: string;
  eventId?: string;
  eventIndex?: number;
  sequenceNumber?: number;
  persistenceState?: 'transient' | 'pending' | 'persisted';
} & Record<string, unknown>;

/** The subset of the WebSocket API the client uses (the browser's, Node's, or a test double). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: 'open' | 'close' | 'error' | 'message',
    listener: (event: { data?: unknown; code?: number; reason?: string }) => void,
  ): void;
}

export type WebSocketFactory = (url: string, protocols?: string | string[]) => WebSocketLike;

export type WsClientStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface WsClientOptions {
  /** Subscribe to this session as soon as the socket opens. */
  sessionId?: string;
  /** Resume this session after this sequence number. */
  lastSequenceNumber?: number;
  /** WebSocket subprotocols. */
  protocols?: string | string[];
  /** Creates the socket (default: `new WebSocket(url, protocols)`). */
  createSocket?: WebSocketFactory;
  /** Consecutive failed connections before giving up (default 8). A delivered frame resets the count. */
  maxRetries?: number;
  /** Delay before reconnect attempt n (1-based), in ms. Default min(250 · 2ⁿ⁻¹, 10 s). */
  backoff?: (attempt: number) => number;
  /** How to wait (injectable; tests pass an immediate one). */
  sleep?: (ms: number) => Promise<void>;
  /** Each frame, once. */
  onEvent?: (frame: WsFrame) => void;
  /** Server messages that are not agent events (acks, control errors). */
  onMessage?: (message: unknown) => void;
  /** Connection status changes. */
  onStatus?: (status: WsClientStatus, detail?: { attempt?: number; code?: number; reason?: string }) => void;
}

export interface WsClient extends AsyncIterable<WsFrame> {
  /** Subscribes to a session (again after every reconnect, from the last sequence number seen). */
  subscribe(sessionId: string, lastSequenceNumber?: number): void;
  /** Sends a message (e.g. `{type: 'message', sessionId, content}`); queued until the socket is open. */
  send(message: unknown): void;
  /** Closes for good; iteration ends. */
  close(): void;
  /** The last sequence number seen for a session (the only one when omitted). */
  lastSequenceNumber(sessionId?: string): number | undefined;
  readonly status: WsClientStatus;
  readonly reconnects: number;
}

const EVENT_ID = /^(.*):(\d+(?:\.\d+)?)$/;

function isFrame(v: unknown): v is WsFrame {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const f = v as Record<string, unknown>;
  return typeof f.type === 'string' && ('persistenceState' in f || 'eventId' in f || 'eventIndex' in f || 'sequenceNumber' in f);
}

/** The agent:event frame a server message carries, if any. */
export function frameOf(message: unknown): WsFrame | undefined {
  if (Array.isArray(message)) return message[0] === 'agent:event' && isFrame(message[1]) ? message[1] : undefined;
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (m.type === 'agent:event' || m.event === 'agent:event') {
    const inner = m.type === 'agent:event' ? (m.event ?? m.data ?? m.payload) : (m.data ?? m.payload);
    return isFrame(inner) ? inner : undefined;
  }
  return isFrame(m) ? m : undefined;
}

const compare = (a: FrameId, b: FrameId) => (a.seq !== b.seq ? a.seq - b.seq : a.index - b.index);

/**
 * Connects to a WebSocket endpoint speaking the `agent:event` contract.
 *
 * @example
 * const client = createWsClient('wss://host/ws', { sessionId: chatId });
 * for await (const frame of client) {
 *   render(frame);
 *   if (frame.type === 'complete') client.close();
 * }
 */
export function createWsClient(url: string, options: WsClientOptions = {}): WsClient {
  const createSocket: WebSocketFactory =
    options.createSocket ??
    ((u, p) => new (globalThis as unknown as { WebSocket: new (u: string, p?: string | string[]) => WebSocketLike }).WebSocket(u, p));
  const maxRetries = options.maxRetries ?? 8;
  const backoff = options.backoff ?? ((n: number) => Math.min(250 * 2 ** (n - 1), 10_000));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  const sessions = new Map<string, number | undefined>();
  const lastEventIds = new Map<string, string>();
  const positions = new Map<string, FrameId>();
  const pending = new Set<string>();
  const outbox: string[] = [];
  const queue: WsFrame[] = [];
  let waiter: { resolve: (r: IteratorResult<WsFrame>) => void; reject: (e: unknown) => void } | undefined;
  let failure: unknown;
  let socket: WebSocketLike | undefined;
  let status: WsClientStatus = 'connecting';
  let closed = false;
  let failures = 0;
  let reconnects = 0;

  if (options.sessionId !== undefined) sessions.set(options.sessionId, options.lastSequenceNumber);

  function setStatus(s: WsClientStatus, detail?: { attempt?: number; code?: number; reason?: string }): void {
    status = s;
    options.onStatus?.(s, detail);
  }

  /** Whether a frame is new (and records it). */
  function accept(frame: WsFrame): boolean {
    const session = frame.sessionId;
    const id = typeof frame.eventId === 'string' ? frame.eventId : undefined;
    const m = id ? EVENT_ID.exec(id) : null;
    const pos = m ? parseFrameId(m[2]) : undefined;
    let fresh: boolean;
    if (m && pos) {
      const last = positions.get(m[1]);
      const c = last ? compare(pos, last) : 1;
      if (c > 0) {
        positions.set(m[1], pos);
        fresh = true;
      } else fresh = c === 0 && pending.has(id as string) && frame.persistenceState === 'persisted';
    } else if (typeof frame.sequenceNumber === 'number' && session !== undefined) {
      const last = sessions.get(session);
      fresh = last === undefined || frame.sequenceNumber > last;
    } else fresh = true;
    if (!fresh) return false;
    if (id) {
      if (frame.persistenceState === 'pending') pending.add(id);
      else pending.delete(id);
    }
    if (session !== undefined) {
      if (typeof frame.sequenceNumber === 'number') {
        const last = sessions.get(session);
        if (last === undefined || frame.sequenceNumber > last) sessions.set(session, frame.sequenceNumber);
      } else if (!sessions.has(session)) sessions.set(session, undefined);
      if (id) lastEventIds.set(session, id);
    }
    return true;
  }

  function deliver(frame: WsFrame): void {
    options.onEvent?.(frame);
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w.resolve({ value: frame, done: false });
    } else queue.push(frame);
  }

  function finish(error?: unknown): void {
    if (error !== undefined) failure = error;
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      if (failure !== undefined) w.reject(failure);
      else w.resolve({ value: undefined, done: true });
    }
  }

  function subscribeMessage(sessionId: string): string {
    const msg: Record<string, unknown> = { type: 'subscribe', sessionId };
    const last = sessions.get(sessionId);
    if (last !== undefined) msg.lastSequenceNumber = last;
    const lastEventId = lastEventIds.get(sessionId);
    if (lastEventId !== undefined) msg.lastEventId = lastEventId;
    return JSON.stringify(msg);
  }

  function connect(): void {
    const ws = createSocket(url, options.protocols);
    socket = ws;
    ws.addEventListener('open', () => {
      if (ws !== socket) return;
      setStatus('open');
      for (const sessionId of sessions.keys()) ws.send(subscribeMessage(sessionId));
      while (outbox.length > 0) ws.send(outbox.shift() as string);
    });
    ws.addEventListener('message', (e) => {
      if (ws !== socket) return;
      let message: unknown;
      try {
        message = JSON.parse(String(e.data));
      } catch {
        options.onMessage?.(e.data);
        return;
      }
      const frame = frameOf(message);
      if (!frame) {
        options.onMessage?.(message);
        return;
      }
      if (!accept(frame)) return;
      failures = 0;
      deliver(frame);
    });
    ws.addEventListener('close', (e) => {
      if (ws !== socket) return;
      socket = undefined;
      if (closed) return;
      void reconnect({ code: e.code, reason: e.reason });
    });
    ws.addEventListener('error', () => {
      // A 'close' event follows: reconnection is handled there.
    });
  }

  async function reconnect(detail: { code?: number; reason?: string }): Promise<void> {
    failures++;
    if (failures > maxRetries) {
      closed = true;
      setStatus('closed', detail);
      finish(new Error(`createWsClient: gave up after ${maxRetries} attempts (close code ${detail.code ?? 'none'})`));
      return;
    }
    reconnects++;
    setStatus('reconnecting', { ...detail, attempt: failures });
    const ms = backoff(failures);
    if (ms > 0) await sleep(ms);
    if (closed) return;
    connect();
  }

  const client: WsClient = {
    subscribe(sessionId, lastSequenceNumber) {
      if (!sessions.has(sessionId) || lastSequenceNumber !== undefined)
        sessions.set(sessionId, lastSequenceNumber ?? sessions.get(sessionId));
      if (socket && status === 'open') socket.send(subscribeMessage(sessionId));
    },
    send(message) {
      const text = JSON.stringify(message);
      if (socket && status === 'open') socket.send(text);
      else outbox.push(text);
    },
    close() {
      if (closed) return;
      closed = true;
      const ws = socket;
      socket = undefined;
      ws?.close(1000, 'client closed');
      setStatus('closed');
      finish();
    },
    lastSequenceNumber(sessionId) {
      if (sessionId !== undefined) return sessions.get(sessionId);
      const [first] = sessions.values();
      return first;
    },
    get status() {
      return status;
    },
    get reconnects() {
      return reconnects;
    },
    [Symbol.asyncIterator]() {
      return {
        next(): Promise<IteratorResult<WsFrame>> {
          if (queue.length > 0) return Promise.resolve({ value: queue.shift() as WsFrame, done: false });
          if (failure !== undefined) return Promise.reject(failure);
          if (closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve, reject) => {
            waiter = { resolve, reject };
          });
        },
        return(): Promise<IteratorResult<WsFrame>> {
          client.close();
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
  connect();
  return client;
}
