/**
 * The canonical event model as zod schemas: the contract every decoder produces and every encoder
 * consumes. The TypeScript types in `events.ts` are inferred from these, so the two never drift.
 *
 * This module is the only part of the core that loads zod at run time; the hot decode → encode path
 * imports types only.
 */
import { z } from 'zod';

import { CANONICAL_VERSION } from './version.ts';
import { CITATION_KINDS, FINISH_REASONS, PATCH_OPERATIONS, SOURCE_KINDS, STEP_KINDS, TODO_CHANGES, TODO_STATUSES } from './vocabulary.ts';

export { CANONICAL_VERSION };

const json = z.json();

/** Per-provider opaque metadata, e.g. `{ anthropic: { signature } }`: where fields without a canonical home go. */
export const providerMetadataSchema = z
  .record(z.string(), z.record(z.string(), json))
  .describe('Per-provider data the canonical model has no field for, keyed by provider name.');

/** Where in the input something happened: used by errors and raw events. */
export const locationSchema = z
  .strictObject({
    line: z.number().int().positive().optional().describe('1-based line of the input (JSON lines input).'),
    event: z.number().int().positive().optional().describe('1-based index of the SSE event in the input.'),
    sseEvent: z.string().optional().describe('The SSE `event:` name, when there was one.'),
    field: z.string().optional().describe('Dotted path of the offending field, e.g. `delta.partial_json`.'),
    expected: z.string().optional().describe('What was expected there.'),
  })
  .describe('A position in the decoder input.');

export const finishReasonSchema = z
  .enum(FINISH_REASONS)
  .describe('Why a step or run ended (the AI SDK vocabulary; the provider value is kept in `rawFinishReason`).');

export const usageSchema = z
  .strictObject({
    inputTokens: z.number().optional().describe('All input tokens, cached ones included.'),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
    costUsd: z.number().optional(),
    raw: json.optional().describe('The provider usage object as received (service tier, cache breakdown, …).'),
  })
  .describe('Token usage; `raw` keeps the provider object so nothing is lost.');

export const citationSchema = z
  .strictObject({
    kind: z.enum(CITATION_KINDS).describe('url: web source; document: a document source; location: char/page/block range.'),
    url: z.string().optional(),
    title: z.string().optional(),
    citedText: z.string().optional(),
    documentIndex: z.number().optional(),
    startIndex: z.number().optional(),
    endIndex: z.number().optional(),
    raw: json.optional().describe('The provider citation object as received.'),
  })
  .describe('A citation attached to a text block.');

export const todoSchema = z.strictObject({
  id: z.string(),
  content: z.string(),
  status: z.enum(TODO_STATUSES),
  activeForm: z.string().optional(),
});

export const jsonPatchOperationSchema = z.strictObject({
  op: z.enum(PATCH_OPERATIONS),
  path: z.string(),
  from: z.string().optional(),
  value: json.optional(),
});

/** Fields every event carries: enough to order and deduplicate across reconnects. */
const envelope = {
  runId: z.string().min(1).describe('The run this event belongs to.'),
  seq: z.number().int().nonnegative().describe('Per-run monotonically increasing sequence number, from 0.'),
  ts: z.number().describe('Milliseconds since the epoch when the event was produced.'),
  subagentId: z.string().optional().describe('Set when the event belongs to a nested subagent run.'),
};

const pm = providerMetadataSchema.optional();

function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S, description: string) {
  // extend (not spread) so that a field of `shape` replaces the envelope's field of the same name.
  return z
    .strictObject({ type: z.literal(type) })
    .extend(envelope)
    .extend(shape)
    .describe(description);
}

export const runStartSchema = event(
  'run-start',
  {
    version: z
      .union([z.literal(1), z.literal(CANONICAL_VERSION)])
      .describe('Model version the run was written with. Version 1 runs are a subset of version 2 and load unchanged.'),
    messageId: z.string().describe('Id of the assistant message this run produces.'),
    continues: z
      .literal(true)
      .optional()
      .describe(
        "The run adds to an earlier run's assistant message (`messageId`), as after an approval: answers before its first step are for that message's calls.",
      ),
    chatId: z.string().optional(),
    parentRunId: z.string().optional(),
    agent: z.string().optional(),
    provider: z.string().optional().describe('Source framework or provider, e.g. `anthropic`.'),
    model: z.string().optional(),
    metadata: z.record(z.string(), json).optional(),
    providerMetadata: pm,
  },
  'A run begins: always the first event.',
);
export const runFinishSchema = event(
  'run-finish',
  {
    finishReason: finishReasonSchema,
    rawFinishReason: z.string().optional(),
    usage: usageSchema.optional().describe('Total over all steps.'),
    pending: z
      .strictObject({
        approvalIds: z.array(z.string()).optional().describe('Tool approvals asked for and not answered in this run.'),
        toolCallIds: z.array(z.string()).optional().describe('Tool calls left for the client to run.'),
        interruptIds: z.array(z.string()).optional().describe('Interrupts not answered in this run.'),
      })
      .optional()
      .describe('Set when the run ended waiting for a person or the client: the next run continues with the answers.'),
    providerMetadata: pm,
  },
  'A run ended; always the last event unless the run was aborted.',
);
export const runAbortSchema = event('run-abort', { reason: z.string().optional() }, 'The run was cancelled; the last event.');
export const errorSchema = event(
  'error',
  {
    message: z.string(),
    code: z.string().optional().describe('Machine-readable code, e.g. `invalid_json`, `overloaded_error`, `truncated`.'),
    fatal: z.boolean().describe('True when the run cannot go on (a run-finish with finishReason error follows).'),
    where: locationSchema.optional(),
    providerMetadata: pm,
  },
  'Something went wrong: a provider error, or input the decoder could not read (located).',
);

export const stepStartSchema = event(
  'step-start',
  {
    stepId: z.string(),
    kind: z.enum(STEP_KINDS),
    name: z.string().optional(),
    number: z.number().int().optional().describe('1-based step number where the framework counts steps.'),
    model: z.string().optional(),
    providerMetadata: pm,
  },
  'A step begins: one model call, or a planning / action / final-answer step (smolagents).',
);
export const stepFinishSchema = event(
  'step-finish',
  {
    stepId: z.string(),
    finishReason: finishReasonSchema.optional(),
    rawFinishReason: z.string().optional(),
    usage: usageSchema.optional(),
    durationMs: z.number().optional(),
    providerMetadata: pm,
  },
  'A step ended.',
);

export const textStartSchema = event('text-start', { blockId: z.string(), providerMetadata: pm }, 'A text block opens.');
export const textDeltaSchema = event('text-delta', { blockId: z.string(), delta: z.string() }, 'Text appended to an open text block.');
export const textEndSchema = event('text-end', { blockId: z.string(), providerMetadata: pm }, 'A text block closes.');
export const citationEventSchema = event(
  'citation',
  { blockId: z.string(), citation: citationSchema },
  'A citation for the text of an open text block (at the current position).',
);

export const reasoningVariantSchema = z
  .enum(['thinking', 'processing'])
  .describe('thinking: model reasoning ("Thought for 3s"); processing: agent status/progress ("Processed in 2s").');
export const reasoningStartSchema = event(
  'reasoning-start',
  { blockId: z.string(), variant: reasoningVariantSchema, providerMetadata: pm },
  'A reasoning block opens. Redacted reasoning carries its opaque data in providerMetadata.',
);
export const reasoningDeltaSchema = event(
  'reasoning-delta',
  { blockId: z.string(), delta: z.string() },
  'Reasoning text appended to an open reasoning block.',
);
export const reasoningEndSchema = event(
  'reasoning-end',
  { blockId: z.string(), providerMetadata: pm.describe('Signatures / encrypted content, e.g. `{anthropic:{signature}}`.') },
  'A reasoning block closes.',
);

const toolCommon = {
  toolCallId: z.string(),
  providerExecuted: z.boolean().optional().describe('Run by the provider (web search, code execution), not by the client.'),
};
export const toolInputStartSchema = event(
  'tool-input-start',
  { ...toolCommon, toolName: z.string(), providerMetadata: pm },
  'A tool call begins; its input may stream.',
);
export const toolInputDeltaSchema = event(
  'tool-input-delta',
  { toolCallId: z.string(), delta: z.string() },
  'A fragment of the tool input JSON text.',
);
export const toolInputEndSchema = event(
  'tool-input-end',
  {
    ...toolCommon,
    toolName: z.string(),
    input: json.describe('The parsed input; the raw text when it is not valid JSON.'),
    inputError: z.string().optional().describe('Why the input text could not be parsed, when it could not.'),
    providerMetadata: pm,
  },
  'The tool input is complete.',
);
export const toolOutputSchema = event(
  'tool-output',
  { ...toolCommon, toolName: z.string().optional(), output: json, preliminary: z.boolean().optional(), providerMetadata: pm },
  'A tool produced its output.',
);
export const toolErrorSchema = event(
  'tool-error',
  { ...toolCommon, toolName: z.string().optional(), error: z.string(), output: json.optional(), providerMetadata: pm },
  'A tool failed.',
);

export const toolApprovalRequestSchema = event(
  'tool-approval-request',
  {
    approvalId: z.string().describe('Answered by a tool-approval-response with the same id.'),
    toolCallId: z.string().describe('The tool call (already announced by tool-input-end) that waits for approval.'),
    toolName: z.string().optional(),
    reason: z.string().optional().describe('Why approval is needed, for the person asked.'),
    providerMetadata: pm,
  },
  'A tool call waits for a person to approve it; the run ends waiting unless the answer arrives in it.',
);
export const toolApprovalResponseSchema = event(
  'tool-approval-response',
  {
    approvalId: z.string(),
    toolCallId: z.string().optional(),
    approved: z.boolean(),
    reason: z.string().optional().describe('Why it was approved or denied.'),
    by: z.string().optional().describe('Who answered (a user id), when known.'),
    providerExecuted: z.boolean().optional(),
    providerMetadata: pm,
  },
  'The answer to a tool approval request. A denied tool does not run.',
);
export const clientToolCallSchema = event(
  'client-tool-call',
  {
    toolCallId: z.string().describe('A tool call announced by tool-input-end that the client must run.'),
    toolName: z.string().optional(),
  },
  'A tool call left for the client (a frontend tool): its output arrives with the next request.',
);
export const interruptSchema = event(
  'interrupt',
  {
    interruptId: z.string().describe('Answered by an interrupt-response with the same id.'),
    reason: z.string().describe('Open vocabulary, e.g. `input_required`, `human_approval`.'),
    message: z.string().optional().describe('A prompt for whoever answers.'),
    toolCallId: z.string().optional(),
    value: json.optional().describe('What the agent attached (a LangGraph interrupt value, a form, a diff).'),
    responseSchema: z.record(z.string(), json).optional().describe('JSON Schema of the expected answer.'),
    expiresAt: z.string().optional(),
    providerMetadata: pm,
  },
  'The agent stops to ask for something; the run ends waiting, the next run resumes with the answer.',
);
export const interruptResponseSchema = event(
  'interrupt-response',
  {
    interruptId: z.string(),
    status: z.enum(['resolved', 'cancelled']).describe('cancelled: abandoned (for an approval: a denial).'),
    payload: json.optional().describe('The answer.'),
    by: z.string().optional(),
  },
  'The answer to an interrupt, at the start of the run that resumes.',
);
export const todosSchema = event(
  'todos',
  {
    change: z.enum(TODO_CHANGES),
    todos: z.array(todoSchema).describe('The whole list after the change.'),
  },
  'The todo list changed; always the full list.',
);
export const subagentStartSchema = event(
  'subagent-start',
  {
    subagentId: z.string().describe('Id of the new subagent run; its events carry it.'),
    parentSubagentId: z.string().optional().describe('Set when a subagent spawns a subagent.'),
    name: z.string(),
    task: z.string().optional(),
    parentToolCallId: z.string().optional(),
  },
  'A nested agent run begins; its events carry `subagentId`.',
);
export const subagentFinishSchema = event(
  'subagent-finish',
  {
    subagentId: z.string(),
    result: z.string().optional(),
    error: z.string().optional(),
  },
  'A nested agent run ended.',
);
/** A source's fields: on its event and on the assistant message's source part. */
export const sourceFields = {
  sourceId: z.string(),
  kind: z.enum(SOURCE_KINDS),
  url: z.string().optional(),
  title: z.string().optional(),
  mediaType: z.string().optional(),
  filename: z.string().optional(),
  providerMetadata: pm,
};
/** A file's fields: on its event and on the assistant message's file part. */
export const fileFields = {
  url: z.string().describe('data: URL or http(s) URL.'),
  mediaType: z.string(),
  filename: z.string().optional(),
  providerMetadata: pm,
};
export const sourceSchema = event('source', sourceFields, 'A source the answer drew on (web page or document).');
export const fileSchema = event('file', fileFields, 'A file produced by the agent or model.');
export const usageEventSchema = event(
  'usage',
  {
    scope: z.enum(['increment', 'step', 'total']).describe('increment: add to the running total; step/total: absolute values.'),
    usage: usageSchema,
    durationMs: z.number().optional(),
  },
  'Token usage reported outside a step-finish (agents that report usage separately).',
);
export const statusSchema = event(
  'status',
  { status: z.string(), message: z.string().optional() },
  'Run status that is not content (queued, retrying, searching…). Agent progress text goes in processing reasoning blocks.',
);
export const stateSnapshotSchema = event('state-snapshot', { state: json }, 'The whole agent state.');
export const stateDeltaSchema = event(
  'state-delta',
  { patch: z.array(jsonPatchOperationSchema) },
  'A change to the agent state as JSON Patch (RFC 6902).',
);
export const customSchema = event('custom', { name: z.string(), value: json }, 'An application-defined event.');
export const rawSchema = event(
  'raw',
  {
    source: z.string().describe('The framework the input came from.'),
    event: json.describe('The input as received.'),
    reason: z.string().optional().describe('Why it has no canonical mapping, e.g. `unknown event type "foo"`.'),
    where: locationSchema.optional(),
  },
  'An input the decoder has no mapping for, passed through untouched so nothing is lost.',
);

/** Every canonical event, discriminated on `type`. */
export const canonicalEventSchema = z.discriminatedUnion('type', [
  runStartSchema,
  runFinishSchema,
  runAbortSchema,
  errorSchema,
  stepStartSchema,
  stepFinishSchema,
  textStartSchema,
  textDeltaSchema,
  textEndSchema,
  citationEventSchema,
  reasoningStartSchema,
  reasoningDeltaSchema,
  reasoningEndSchema,
  toolInputStartSchema,
  toolInputDeltaSchema,
  toolInputEndSchema,
  toolOutputSchema,
  toolErrorSchema,
  toolApprovalRequestSchema,
  toolApprovalResponseSchema,
  clientToolCallSchema,
  interruptSchema,
  interruptResponseSchema,
  todosSchema,
  subagentStartSchema,
  subagentFinishSchema,
  sourceSchema,
  fileSchema,
  usageEventSchema,
  statusSchema,
  stateSnapshotSchema,
  stateDeltaSchema,
  customSchema,
  rawSchema,
]);

/** The JSON Schema of one canonical event (what `npm run schema` writes to disk). */
export function canonicalJsonSchema(): Record<string, unknown> {
  return {
    $id: 'urn:switchboard:canonical-event:v2',
    title: 'Switchboard canonical event',
    ...z.toJSONSchema(canonicalEventSchema, { target: 'draft-2020-12' }),
  };
}
