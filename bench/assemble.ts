/**
 * Our path from canonical events to an assembled assistant message, for the readers benchmark: the
 * counterpart of what the official clients build (`readUIMessageStream`'s UIMessage, `HttpAgent`'s
 * `messages`). One pass, constant work per event: text and reasoning are kept as lists of deltas per
 * block and joined once, in `message()`; a tool call takes the input its `tool-input-end` carries
 * (the decoder parsed it once). It builds the final message only, not a snapshot per event.
 */
import type { CanonicalEvent, Json } from '@switchboard/core';

export interface AssembledPart {
  type: 'text' | 'reasoning';
  blockId: string;
  text: string;
}

export interface AssembledToolCall {
  toolCallId: string;
  toolName: string;
  input: Json | undefined;
}

export interface AssembledMessage {
  messageId: string | undefined;
  /** Text and reasoning parts, in the order their blocks opened. */
  parts: AssembledPart[];
  toolCalls: AssembledToolCall[];
  finishReason: string | undefined;
  /** Messages of `error` events (a correct read of the fixtures has none). */
  errors: string[];
}

export interface MessageAssembler {
  push(event: CanonicalEvent): void;
  message(): AssembledMessage;
}

export function createMessageAssembler(): MessageAssembler {
  let messageId: string | undefined;
  let finishReason: string | undefined;
  const blocks: { type: 'text' | 'reasoning'; blockId: string; deltas: string[] }[] = [];
  const open = new Map<string, string[]>();
  const calls = new Map<string, AssembledToolCall>();
  const errors: string[] = [];
  const start = (type: 'text' | 'reasoning', blockId: string) => {
    const deltas: string[] = [];
    blocks.push({ type, blockId, deltas });
    open.set(blockId, deltas);
  };
  return {
    push(e) {
      switch (e.type) {
        case 'run-start':
          messageId = e.messageId;
          break;
        case 'text-start':
        case 'reasoning-start':
          start(e.type === 'text-start' ? 'text' : 'reasoning', e.blockId);
          break;
        case 'text-delta':
        case 'reasoning-delta':
          open.get(e.blockId)?.push(e.delta);
          break;
        case 'text-end':
        case 'reasoning-end':
          open.delete(e.blockId);
          break;
        case 'tool-input-start':
          calls.set(e.toolCallId, { toolCallId: e.toolCallId, toolName: e.toolName, input: undefined });
          break;
        case 'tool-input-end':
          calls.set(e.toolCallId, { toolCallId: e.toolCallId, toolName: e.toolName, input: e.input });
          break;
        case 'run-finish':
          finishReason = e.finishReason;
          break;
        case 'error':
          errors.push(e.message);
          break;
      }
    },
    message: () => ({
      messageId,
      parts: blocks.map((b) => ({ type: b.type, blockId: b.blockId, text: b.deltas.join('') })),
      toolCalls: [...calls.values()],
      finishReason,
      errors,
    }),
  };
}
