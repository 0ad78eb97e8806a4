/**
 * A minimal in-process WebSocket server (node:http `upgrade`, RFC 6455 text frames) that serves a
 * stored `agent:event` session per the contract's subscribe message and drops connections where a test
 * says: the stand-in for the gateway's `/ws` in the WS client tests.
 *
 * Contract served: on `{type: 'subscribe', sessionId, lastSequenceNumber}`, every frame of the session
 * after the last frame carrying a sequence number ≤ lastSequenceNumber (chunks included), then the
 * rest; `overlap` resends that many earlier frames (the client must dedupe).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function encodeText(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n]) : n < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65_536) {
    head[0] = 0x81;
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else if (n >= 65_536) {
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Parses masked client frames; returns the text messages and whether a close frame came. */
function createFrameReader(onText: (text: string) => void, onClose: () => void, onPing: (payload: Buffer) => void) {
  let buf = Buffer.alloc(0);
  return (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 2) {
      const opcode = buf[0] & 0x0f;
      let len = buf[1] & 0x7f;
      const masked = (buf[1] & 0x80) !== 0;
      let offset = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        offset = 10;
      }
      const maskLen = masked ? 4 : 0;
      if (buf.length < offset + maskLen + len) return;
      const mask = buf.subarray(offset, offset + maskLen);
      const payload = Buffer.from(buf.subarray(offset + maskLen, offset + maskLen + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
      buf = buf.subarray(offset + maskLen + len);
      if (opcode === 0x1) onText(payload.toString('utf8'));
      else if (opcode === 0x8) onClose();
      else if (opcode === 0x9) onPing(payload);
    }
  };
}

export interface WsSubscribe {
  sessionId: string;
  lastSequenceNumber?: number;
  lastEventId?: string;
}

export interface WsSessionServerOptions {
  /** The stored frames of each session. */
  sessions: Record<string, Record<string, unknown>[]>;
  /** Frames to send on connection n (0-based) before dropping it; none = no drop. */
  cuts?: (number | undefined)[];
  /** Resend this many frames before the resume point. */
  overlap?: number;
  /** How to wrap each frame: bare, `{type:'agent:event', event}`, or Socket.IO style `['agent:event', frame]`. */
  envelope?: 'bare' | 'typed' | 'array';
}

export interface WsSessionServer {
  url: string;
  subscribes: WsSubscribe[][];
  received: unknown[];
  close(): Promise<void>;
}

function startIndex(frames: Record<string, unknown>[], last: number | undefined): number {
  if (last === undefined) return 0;
  let at = 0;
  frames.forEach((f, i) => {
    if (typeof f.sequenceNumber === 'number' && f.sequenceNumber <= last) at = i + 1;
  });
  return at;
}

export async function startWsSessionServer(options: WsSessionServerOptions): Promise<WsSessionServer> {
  const subscribes: WsSubscribe[][] = [];
  const received: unknown[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(426).end();
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const key = req.headers['sec-websocket-key'];
    const accept = createHash('sha1').update(`${key}${GUID}`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    const n = subscribes.length;
    const mine: WsSubscribe[] = [];
    subscribes.push(mine);
    let budget = options.cuts?.[n];
    const send = (frame: Record<string, unknown>): boolean => {
      if (budget !== undefined && budget <= 0) return false;
      const env = options.envelope ?? 'bare';
      const message = env === 'typed' ? { type: 'agent:event', event: frame } : env === 'array' ? ['agent:event', frame] : frame;
      socket.write(encodeText(JSON.stringify(message)));
      if (budget !== undefined) budget--;
      return true;
    };
    const onText = (text: string) => {
      const msg = JSON.parse(text) as Record<string, unknown>;
      received.push(msg);
      if (msg.type !== 'subscribe') return;
      const sub = msg as unknown as WsSubscribe;
      mine.push(sub);
      const frames = options.sessions[sub.sessionId] ?? [];
      let from = startIndex(frames, sub.lastSequenceNumber);
      if (sub.lastSequenceNumber !== undefined && options.overlap) from = Math.max(0, from - options.overlap);
      socket.write(encodeText(JSON.stringify({ type: 'subscribed', sessionId: sub.sessionId })));
      // A drop: the TCP connection ends without a close frame (the client sees 1006). `end()` rather
      // than `destroy()` so that what was written before still arrives.
      for (const f of frames.slice(from)) {
        if (!send(f)) {
          socket.end();
          return;
        }
      }
      if (budget !== undefined && budget <= 0) socket.end();
    };
    socket.on(
      'data',
      createFrameReader(
        onText,
        () => socket.end(Buffer.from([0x88, 0])),
        (p) => socket.write(Buffer.concat([Buffer.from([0x8a, p.length]), p])),
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    subscribes,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
