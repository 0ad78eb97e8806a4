/**
 * The encoder registry: for each UI protocol, its encoder and how its frames go over SSE.
 */

import type { Machine } from '../machine.ts';
import type { CanonicalEvent } from '../model/events.ts';
import { guardEncoder } from '../model/guard-encoder.ts';
import { AG_UI_SSE_HEADERS, type AgUiEncoderOptions, createAgUiEncoder } from '../protocols/ag-ui/encoder.ts';
import type { AgUiEvent } from '../protocols/ag-ui/schema.ts';
import { AI_SDK_SSE_HEADERS, type AiSdkChunk, type AiSdkEncoderOptions, createAiSdkEncoder } from '../protocols/ai-sdk/encoder.ts';
import { createCanonicalEncoder } from '../protocols/canonical/encoder.ts';
import { createDsAgentEncoder, type DsAgentEncoderOptions, type DsAgentRunMessage } from '../protocols/dsagent/encoder.ts';
import { createWsEncoder, type WsEncoderOptions, type WsEvent } from '../protocols/ws/encoder.ts';

/** Options understood by the encoders (each takes what applies to it). */
export type EncoderOptions = AiSdkEncoderOptions & AgUiEncoderOptions & WsEncoderOptions & DsAgentEncoderOptions;

/** How one protocol is encoded and framed. */
export interface ProtocolSpec {
  create(options?: EncoderOptions): Machine<CanonicalEvent, object>;
  /** Response headers for its SSE transport. */
  headers: Record<string, string>;
  /** Data line written after the last frame (`[DONE]` for the AI SDK). */
  terminator?: string;
}

/** SSE headers for protocols without their own. */
const PLAIN_SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export const PROTOCOLS = {
  'ai-sdk': { create: createAiSdkEncoder, headers: AI_SDK_SSE_HEADERS, terminator: '[DONE]' },
  'ag-ui': { create: createAgUiEncoder, headers: AG_UI_SSE_HEADERS },
  ws: { create: createWsEncoder, headers: PLAIN_SSE_HEADERS },
  dsagent: { create: createDsAgentEncoder, headers: PLAIN_SSE_HEADERS },
  canonical: { create: createCanonicalEncoder, headers: PLAIN_SSE_HEADERS },
} as const satisfies Record<string, ProtocolSpec>;

export type Protocol = keyof typeof PROTOCOLS;

/** The frame type each protocol's encoder produces. */
export interface FrameTypes {
  'ai-sdk': AiSdkChunk;
  'ag-ui': AgUiEvent;
  ws: WsEvent;
  dsagent: DsAgentRunMessage;
  canonical: CanonicalEvent;
}
export type FrameOf<P extends Protocol> = FrameTypes[P];

/** True when `name` is a protocol with an encoder. */
export function isProtocol(name: string): name is Protocol {
  return Object.hasOwn(PROTOCOLS, name);
}

/** Creates the encoder of a protocol; it never throws, whatever the events (see docs/hostile-input.md). */
export function createEncoder<P extends Protocol>(protocol: P, options: EncoderOptions = {}): Machine<CanonicalEvent, FrameOf<P>> {
  const spec: ProtocolSpec | undefined = PROTOCOLS[protocol];
  if (!spec) throw new TypeError(`unknown protocol "${protocol}"; expected one of: ${Object.keys(PROTOCOLS).join(', ')}`);
  // Behind the hostile-input guard: no event makes an encoder throw (model/guard-encoder.ts).
  return guardEncoder(spec.create(options) as Machine<CanonicalEvent, FrameOf<P>>);
}
