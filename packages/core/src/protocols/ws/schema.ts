/**
 * Zod schemas of the WebSocket `agent:event` contract (field names from the WebSocket box of the
 * BC-Claude-Agent prototype's "Claude API Event Transformation Mapping", the base fields from its
 * `BaseAgentEvent`), plus the extension frames Switchboard adds for canonical events the contract
 * has no type for. One frame is the payload of one `socket.emit('agent:event', event)`.
 *
 * Like `model/schema.ts` this module loads zod, so the encoder and the reader import its types only.
 * `validateWsEvents` checks a whole session: every frame against its schema, and the contract's
 * sequence rules (eventIndex, sequenceNumber, persistenceState, dedupe, accumulation).
 */
import { z } from 'zod';
import * as canonical from '../../model/schema.ts';
import { checkEach, type ValidationResult } from '../../model/validate.ts';
import { CITATION_KINDS } from '../../model/vocabulary.ts';

const json = z.json();
// The canonical model's vocabulary, not a copy of it.
const providerMetadata = canonical.providerMetadataSchema.optional();
const finishReason = canonical.finishReasonSchema;

/** `persistenceState`: transient (chunks), pending (not yet stored), persisted (stored, has a sequenceNumber). */
export const wsPersistenceStateSchema = z.enum(['transient', 'pending', 'persisted']);

/**
 * Token usage in Anthropic's vocabulary (the contract's `usage: { input_tokens, output_tokens, cache_* }`):
 * `input_tokens` counts uncached input only, as Anthropic does; the cache counts, `service_tier` and the
 * provider's other usage keys sit beside it; `raw` is the provider's object as received.
 */
export const wsUsageSchema = z
  .looseObject({
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    total_tokens: z.number().optional(),
    reasoning_tokens: z.number().optional(),
    cache_creation_input_tokens: z.number().optional(),
    cache_read_input_tokens: z.number().optional(),
    cost_usd: z.number().optional(),
    service_tier: z.string().nullable().optional(),
    raw: json.optional(),
  })
  .describe('Usage with cache tokens and the provider extras (service_tier, …); raw = the provider object.');

/**
 * A citation on message_chunk / message: Anthropic's citation object (`type`, `cited_text`,
 * `document_index`, `document_title`, `start_char_index`, `end_char_index`, or `url` / `title` for web
 * results) plus `kind` (the canonical kind) and `raw` (the provider's own object).
 */
export const wsCitationSchema = z.looseObject({
  type: z.string(),
  kind: z.enum(CITATION_KINDS).optional(),
  cited_text: z.string().optional(),
  document_index: z.number().optional(),
  document_title: z.string().optional(),
  url: z.string().optional(),
  title: z.string().optional(),
  start_char_index: z.number().optional(),
  end_char_index: z.number().optional(),
  raw: json.optional(),
});

/** Fields of every frame: the prototype's BaseAgentEvent plus eventIndex (the contract's) and subagentId. */
const base = {
  eventId: z.string().min(1).describe('Unique, deterministic: `<runId>:<seq>` of the canonical event, `.k` for its k-th further frame.'),
  timestamp: z.iso.datetime().describe('ISO 8601, from the canonical event time.'),
  sessionId: z.string().min(1),
  eventIndex: z.number().int().nonnegative().describe('Per session, from 0, +1 on every frame.'),
  sequenceNumber: z.number().int().optional().describe('Per session, strictly increasing; present iff persisted.'),
  persistenceState: wsPersistenceStateSchema,
  subagentId: z.string().optional().describe('Set on frames of a nested subagent run.'),
};

function frame<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z
    .strictObject({ type: z.literal(type) })
    .extend(base)
    .extend(shape);
}

/**
 * An extension frame: the canonical event's own fields under the frame base, as the encoder writes it
 * (the event without its envelope). Its `subagentId`, where it has one, replaces the base's.
 */
function extension<T extends string, S extends z.ZodRawShape>(type: T, event: z.ZodObject<S>) {
  const { type: _type, runId: _runId, seq: _seq, ts: _ts, ...fields } = event.shape;
  return frame(type, fields);
}

/** Block fields of the streaming frames: blockIndex per message/turn, messageId, and our blockId. */
const block = {
  blockIndex: z.number().int().nonnegative().describe('Per message/turn, per content block (text, thinking, tool use).'),
  messageId: z.string().describe('The message (model step) the block belongs to; the run message outside steps.'),
  blockId: z.string().describe('Extension: the canonical block id.'),
  startProviderMetadata: providerMetadata.describe('Extension: providerMetadata of the block start (first frame of the block).'),
};

export const wsSessionStartSchema = frame('session_start', {
  userId: z.string().optional(),
  modelConfig: z.strictObject({ model: z.string().optional(), provider: z.string().optional() }),
  messageId: z.string(),
  chatId: z.string().optional(),
  parentRunId: z.string().optional(),
  agent: z.string().optional(),
  metadata: z.record(z.string(), json).optional(),
  providerMetadata,
});

const variant = z.literal('processing').optional().describe('Extension: set for processing (agent status) reasoning.');

export const wsThinkingChunkSchema = frame('thinking_chunk', { content: z.string(), variant, ...block });
export const wsThinkingSchema = frame('thinking', {
  content: z.string().describe('The accumulated content of the block.'),
  variant,
  ...block,
  providerMetadata,
});
export const wsMessageChunkSchema = frame('message_chunk', {
  content: z.string(),
  citations: z.array(wsCitationSchema).optional().describe('Citations that arrived since the previous chunk.'),
  ...block,
});
export const wsMessageSchema = frame('message', {
  content: z.string().describe('The accumulated content of the block.'),
  role: z.literal('assistant'),
  citations: z.array(wsCitationSchema).optional().describe('Every citation of the block.'),
  ...block,
  providerMetadata,
});

/** Prototype (`@bc-agent/shared`) names, sent too with the encoder's `aliases` option. */
const toolAliases = { toolName: z.string().optional(), toolUseId: z.string().optional() };

export const wsToolUseSchema = frame('tool_use', {
  tool_call_id: z.string(),
  tool_name: z.string(),
  tool_input: json,
  blockIndex: z.number().int().nonnegative(),
  messageId: z.string(),
  providerExecuted: z.literal(true).optional(),
  inputError: z.string().optional(),
  providerMetadata,
  startProviderMetadata: providerMetadata,
  ...toolAliases,
  args: json.optional(),
});
export const wsToolResultSchema = frame('tool_result', {
  tool_call_id: z.string(),
  tool_name: z.string().optional(),
  result: json,
  isError: z.boolean(),
  error: z.string().optional(),
  providerExecuted: z.literal(true).optional(),
  preliminary: z.literal(true).optional().describe('Extension: a preliminary output (transient-like, not deduplicated).'),
  providerMetadata,
  ...toolAliases,
  success: z.boolean().optional(),
});
export const wsCompleteSchema = frame('complete', {
  stop_reason: z.string().nullable().describe('Anthropic vocabulary (end_turn, tool_use, max_tokens, …) or the provider value.'),
  reason: z.enum(['success', 'error', 'max_turns', 'user_cancelled']),
  finishReason: finishReason.optional().describe('Extension: the canonical finish reason.'),
  derivedStopReason: z.literal(true).optional().describe('Extension: stop_reason was derived from finishReason (no provider value).'),
  usage: wsUsageSchema.optional().describe("The run's usage: the run-finish's, else the last run-level usage total."),
  derivedUsage: z.literal(true).optional().describe('Extension: usage is the last `usage` total frame repeated (the run-finish had none).'),
  aborted: z.literal(true).optional(),
  abortReason: z.string().optional(),
  pending: z
    .strictObject({
      approval_ids: z.array(z.string()).optional(),
      tool_call_ids: z.array(z.string()).optional(),
      interrupt_ids: z.array(z.string()).optional(),
    })
    .optional()
    .describe('Extension: the run ended waiting for these answers (the next run continues).'),
  providerMetadata,
  stopReason: z.string().nullable().optional(),
});
export const wsErrorSchema = frame('error', {
  error: z.string(),
  code: z.string().optional(),
  fatal: z.boolean().describe('Extension: the run cannot go on.'),
  where: canonical.locationSchema.optional(),
  providerMetadata,
});

// -- extensions: canonical events the contract has no type for -----------------------------------

export const wsStepStartSchema = extension('step_start', canonical.stepStartSchema);
export const wsStepFinishSchema = frame('step_finish', {
  stepId: z.string(),
  stop_reason: z.string().nullable().optional(),
  finishReason: finishReason.optional(),
  derivedStopReason: z.literal(true).optional(),
  usage: wsUsageSchema.optional(),
  durationMs: z.number().optional(),
  providerMetadata,
});
export const wsSourceSchema = extension('source', canonical.sourceSchema);
export const wsFileSchema = extension('file', canonical.fileSchema);
export const wsTodosSchema = extension('todos', canonical.todosSchema);
export const wsSubagentStartSchema = extension('subagent_start', canonical.subagentStartSchema);
export const wsSubagentFinishSchema = extension('subagent_finish', canonical.subagentFinishSchema);
export const wsUsageEventSchema = frame('usage', {
  scope: z.enum(['increment', 'step', 'total']),
  usage: wsUsageSchema,
  durationMs: z.number().optional(),
});
export const wsStatusSchema = extension('status', canonical.statusSchema);
export const wsStateSnapshotSchema = extension('state_snapshot', canonical.stateSnapshotSchema);
export const wsStateDeltaSchema = extension('state_delta', canonical.stateDeltaSchema);
export const wsToolApprovalRequestSchema = frame('tool_approval_request', {
  approval_id: z.string(),
  tool_call_id: z.string().describe('The tool_use that waits for approval.'),
  tool_name: z.string().optional(),
  reason: z.string().optional(),
  providerMetadata,
});
export const wsToolApprovalResponseSchema = frame('tool_approval_response', {
  approval_id: z.string(),
  tool_call_id: z.string().optional(),
  approved: z.boolean(),
  reason: z.string().optional(),
  by: z.string().optional(),
  providerExecuted: z.boolean().optional(),
  providerMetadata,
});
export const wsClientToolCallSchema = frame('client_tool_call', { tool_call_id: z.string(), tool_name: z.string().optional() });
export const wsInterruptSchema = frame('interrupt', {
  interrupt_id: z.string(),
  reason: z.string(),
  message: z.string().optional(),
  tool_call_id: z.string().optional(),
  value: json.optional(),
  response_schema: z.record(z.string(), json).optional(),
  expires_at: z.string().optional(),
  providerMetadata,
});
export const wsInterruptResponseSchema = frame('interrupt_response', {
  interrupt_id: z.string(),
  status: z.enum(['resolved', 'cancelled']),
  payload: json.optional(),
  by: z.string().optional(),
});
export const wsCustomSchema = extension('custom', canonical.customSchema);
export const wsRawSchema = extension('raw', canonical.rawSchema);

/** Every frame the WebSocket encoder writes, discriminated on `type`. */
export const wsEventSchema = z.discriminatedUnion('type', [
  wsSessionStartSchema,
  wsThinkingChunkSchema,
  wsThinkingSchema,
  wsMessageChunkSchema,
  wsMessageSchema,
  wsToolUseSchema,
  wsToolResultSchema,
  wsCompleteSchema,
  wsErrorSchema,
  wsStepStartSchema,
  wsStepFinishSchema,
  wsSourceSchema,
  wsFileSchema,
  wsTodosSchema,
  wsSubagentStartSchema,
  wsSubagentFinishSchema,
  wsUsageEventSchema,
  wsStatusSchema,
  wsStateSnapshotSchema,
  wsStateDeltaSchema,
  wsCustomSchema,
  wsRawSchema,
  wsToolApprovalRequestSchema,
  wsToolApprovalResponseSchema,
  wsClientToolCallSchema,
  wsInterruptSchema,
  wsInterruptResponseSchema,
]);

/** One `agent:event` frame. */
export type WsEvent = z.infer<typeof wsEventSchema>;
export type WsEventType = WsEvent['type'];
export type WsEventOf<T extends WsEventType> = Extract<WsEvent, { type: T }>;
export type WsUsage = z.infer<typeof wsUsageSchema>;
export type WsCitation = z.infer<typeof wsCitationSchema>;

/** The contract's own event types (the rest are Switchboard extensions). */
export const WS_SEED_TYPES = [
  'session_start',
  'thinking_chunk',
  'thinking',
  'message_chunk',
  'message',
  'tool_use',
  'tool_result',
  'complete',
  'error',
] as const;

/**
 * Checks a session of frames: each against its schema, and the contract as a whole — session_start
 * first and complete last; eventIndex +1 per frame; sequenceNumber strictly increasing; chunks
 * transient, frames with a sequenceNumber persisted, the others pending; one tool_use and one final
 * tool_result per tool_call_id; thinking / message content equal to its chunks joined.
 */
export function validateWsEvents(frames: Iterable<unknown>): ValidationResult {
  let lastIndex: number | undefined;
  let lastSeq = -Infinity;
  let ended = false;
  const toolUses = new Set<string>();
  const toolResults = new Set<string>();
  const chunks = new Map<string, string[]>();
  const { issues } = checkEach(frames, wsEventSchema, (f, issue, index) => {
    if (index === 0 && f.type !== 'session_start') issue('type', `expected the first frame to be "session_start", got "${f.type}"`);
    if (ended) issue('type', `expected nothing after "complete", got "${f.type}"`);
    if (lastIndex !== undefined && f.eventIndex !== lastIndex + 1) issue('eventIndex', `expected ${lastIndex + 1}, got ${f.eventIndex}`);
    lastIndex = f.eventIndex;
    if (f.sequenceNumber !== undefined) {
      if (f.sequenceNumber <= lastSeq) issue('sequenceNumber', `expected a number greater than ${lastSeq}, got ${f.sequenceNumber}`);
      lastSeq = f.sequenceNumber;
    }
    const chunk = f.type === 'thinking_chunk' || f.type === 'message_chunk';
    const expected = chunk ? 'transient' : f.sequenceNumber !== undefined ? 'persisted' : 'pending';
    if (f.persistenceState !== expected) issue('persistenceState', `expected "${expected}", got "${f.persistenceState}"`);
    switch (f.type) {
      case 'thinking_chunk':
      case 'message_chunk': {
        const list = chunks.get(f.blockId) ?? [];
        list.push(f.content);
        chunks.set(f.blockId, list);
        break;
      }
      case 'thinking':
      case 'message': {
        const joined = (chunks.get(f.blockId) ?? []).join('');
        chunks.delete(f.blockId);
        if (joined !== f.content) issue('content', `expected the accumulated content of block "${f.blockId}" (its chunks joined)`);
        break;
      }
      case 'tool_use':
        if (toolUses.has(f.tool_call_id)) issue('tool_call_id', `tool_use "${f.tool_call_id}" sent twice`);
        toolUses.add(f.tool_call_id);
        break;
      case 'tool_result':
        if (f.preliminary) break;
        if (toolResults.has(f.tool_call_id)) issue('tool_call_id', `tool_result "${f.tool_call_id}" sent twice`);
        toolResults.add(f.tool_call_id);
        break;
      case 'complete':
        ended = true;
        break;
    }
  });
  return { ok: issues.length === 0, issues };
}
