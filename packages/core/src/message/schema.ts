/**
 * The assistant message as zod schemas: what a run's canonical events fold into (`fold.ts`), the one
 * shape the store persists, history serves in every protocol and clients render. The TypeScript types
 * in `types.ts` are inferred from these.
 *
 * The parts follow the AI SDK `UIMessage` part model (the de facto standard for chat UIs): the same
 * step boundaries, tool-part lookups and data parts that `readUIMessageStream` builds from the AI SDK
 * encoder's stream, so a reloaded `UIMessage` equals the live one. Each part also keeps what the wire
 * formats drop: the seq of the event that made it, server times and durations, the block id and the
 * subagent. Loaded only by `@switchboard/core/schema` (the fold imports types only).
 */
import { z } from 'zod';
import {
  citationSchema,
  fileFields,
  finishReasonSchema,
  jsonPatchOperationSchema,
  locationSchema,
  providerMetadataSchema,
  reasoningVariantSchema,
  sourceFields,
  todoSchema,
  usageSchema,
} from '../model/schema.ts';
import { STEP_KINDS } from '../model/vocabulary.ts';

const json = z.json();
const pm = providerMetadataSchema.optional();
const stepKind = z.enum(STEP_KINDS);

/** Fields every part has. */
const partBase = {
  seq: z.number().int().describe("seq of the event that created the part (in a continued message, offset by the earlier runs' events)."),
  subagentId: z.string().optional().describe('Set on parts produced by a nested subagent.'),
};

/** Timing of something that runs for a while, on the server's clock (`ts` of its events). */
const timed = {
  startedAt: z.number().describe('`ts` of the event that opened it (ms since the epoch).'),
  endedAt: z.number().optional().describe('`ts` of the event that closed it.'),
  durationMs: z.number().optional().describe('endedAt − startedAt (the same after a reload).'),
  receivedAt: z
    .number()
    .optional()
    .describe("When the fold saw the opening event, on its injected clock (a browser's receipt time: the base of a live timer)."),
};

/** A part's schema: its `type`, the fields every part has, then its own (as `event` in model/schema.ts). */
function part<T extends string, S extends z.ZodRawShape>(type: T, shape: S, description: string) {
  return z.object({ type: z.literal(type), ...partBase, ...shape }).describe(description);
}

export const messageStatusSchema = z
  .enum(['streaming', 'complete', 'error', 'aborted'])
  .describe('Where an assistant message stands: still streaming, or how its run ended.');

export const persistenceStateSchema = z
  .enum(['transient', 'pending', 'persisted'])
  .describe('transient: only in memory; pending: written while its run is live; persisted: its run ended and is stored.');

export const stepStartPartSchema = part(
  'step-start',
  {
    startedAt: timed.startedAt,
    receivedAt: timed.receivedAt,
    stepId: z
      .string()
      .optional()
      .describe("Set for explicit steps (a canonical step-start); absent for the AI SDK encoder's implicit steps."),
    kind: stepKind.optional(),
    name: z.string().optional(),
    number: z.number().int().optional(),
    model: z.string().optional(),
  },
  'A step boundary (AI SDK `step-start`).',
);

export const reasoningPartSchema = part(
  'reasoning',
  {
    ...timed,
    blockId: z.string(),
    variant: reasoningVariantSchema,
    text: z.string(),
    state: z.enum(['streaming', 'done']),
    providerMetadata: pm.describe('Start and end providerMetadata merged per provider (signatures arrive on the end).'),
  },
  'A reasoning block: model thinking ("Thought for 3s") or agent processing ("Processed in 2s").',
);

export const storedCitationSchema = citationSchema
  .extend({ sourceId: z.string().describe('`citation-<n>`, numbered as the AI SDK encoder numbers them.') })
  .describe('A citation of a text block.');

export const textPartSchema = part(
  'text',
  {
    startedAt: timed.startedAt,
    endedAt: timed.endedAt,
    receivedAt: timed.receivedAt,
    blockId: z.string(),
    text: z.string(),
    state: z.enum(['streaming', 'done']),
    endSeq: z.number().int().optional().describe('seq of the event that closed it (tells text blocks open at the same time apart).'),
    citations: z.array(storedCitationSchema).optional(),
    providerMetadata: pm.describe("The end's providerMetadata, else the start's (the AI SDK client's replace rule)."),
  },
  'A text block.',
);

export const toolStateSchema = z
  .enum([
    'input-streaming',
    'input-available',
    'approval-requested',
    'approval-responded',
    'output-available',
    'output-error',
    'output-denied',
  ])
  .describe('The AI SDK tool part states a canonical stream can reach.');

export const toolApprovalSchema = z
  .object({
    id: z.string().describe('The approval id.'),
    requestReason: z.string().optional(),
    approved: z.boolean().optional(),
    reason: z.string().optional(),
    by: z.string().optional().describe('Who answered.'),
  })
  .describe("A tool call's approval as the AI SDK client keeps it on the part: the request, then the answer.");

export const toolPartSchema = part(
  'tool',
  {
    ...timed,
    toolCallId: z.string(),
    toolName: z.string(),
    state: toolStateSchema,
    input: json.optional().describe('The parsed input (while it streams: what the partial JSON parses to so far).'),
    inputText: z.string().optional().describe('The input text as it streamed; absent when the input came whole.'),
    inputError: z.string().optional().describe('Why the input text could not be parsed.'),
    output: json.optional(),
    errorText: z.string().optional().describe('The error of a failed call (tool-error, or the input error).'),
    errorOutput: json.optional().describe("The provider's error payload of a tool-error."),
    preliminary: z.boolean().optional(),
    providerExecuted: z.boolean().optional(),
    callProviderMetadata: pm,
    resultProviderMetadata: pm,
    inputSeq: z.number().int().optional().describe('seq of the tool-input-end event, when the input streamed first.'),
    inputAt: z.number().optional().describe('ts of the tool-input-end event, when the input streamed first.'),
    outputSeq: z.number().int().optional().describe('seq of the output / error event.'),
    approval: toolApprovalSchema.optional(),
  },
  'A tool call with its input, output and state.',
);

export const sourcePartSchema = part(
  'source',
  {
    ...sourceFields,
    fromCitation: z.boolean().optional().describe('True when the source came from a citation (its id is `citation-<n>`).'),
  },
  'A source the answer drew on, where it appeared (URL sources once per URL).',
);

export const filePartSchema = part(
  'file',
  { ...fileFields, at: z.number().optional().describe('`ts` of the file event.') },
  'A file the agent or model produced.',
);

export const DATA_PART_NAMES = ['todos', 'usage', 'subagent', 'state', 'custom', 'interrupt', 'interrupt-response'] as const;

export const dataPartSchema = part(
  'data',
  {
    name: z
      .string()
      .describe(
        'todos (id `todos`: `{ change, todos }`), usage (`{ scope, …usage }`; the total as id `usage`), subagent (id = subagentId: `{ event, …fields }`), state (id `state`), custom (`{ name, value }`), interrupt and interrupt-response (id = interruptId).',
      ),
    id: z.string().optional().describe('A data part with an id is replaced in place by a later one with that id.'),
    data: json,
  },
  'An AI SDK data part (`data-<name>`): what the message has no typed part for.',
);

export const messagePartSchema = z
  .discriminatedUnion('type', [
    stepStartPartSchema,
    reasoningPartSchema,
    textPartSchema,
    toolPartSchema,
    sourcePartSchema,
    filePartSchema,
    dataPartSchema,
  ])
  .describe('One ordered block of an assistant message.');

export const reasoningSpanSchema = z
  .object({
    blockId: z.string(),
    text: z.string(),
    startedAt: z.number(),
    endedAt: z.number().optional(),
    durationMs: z.number().optional(),
    subagentId: z.string().optional(),
  })
  .describe('A reasoning block with its server-measured duration.');

export const thinkingSpanSchema = reasoningSpanSchema
  .extend({
    signature: z.string().optional().describe('Anthropic thinking signature (also kept in providerMetadata).'),
    redacted: z.boolean().optional().describe('True for redacted thinking (its opaque data is in providerMetadata).'),
    providerMetadata: pm,
  })
  .describe('A thinking block: a reasoning span plus what a model needs to accept it back.');

export const stepInfoSchema = z
  .object({
    stepId: z.string(),
    kind: stepKind,
    name: z.string().optional(),
    number: z.number().int().optional(),
    model: z.string().optional(),
    startedAt: z.number(),
    endedAt: z.number().optional(),
    durationMs: z.number().optional(),
    measured: z.literal(true).optional().describe('durationMs is endedAt − startedAt: step-finish reported no duration of its own.'),
    finishSeq: z.number().int().optional().describe('`seq` of the step-finish event.'),
    finishReason: finishReasonSchema.optional(),
    rawFinishReason: z.string().optional(),
    usage: usageSchema.optional(),
    subagentId: z.string().optional(),
    providerMetadata: pm.describe("step-start's and step-finish's providerMetadata, merged."),
  })
  .describe('An explicit step of the run.');

export const subagentInfoSchema = z
  .object({
    subagentId: z.string(),
    name: z.string(),
    task: z.string().optional(),
    parentToolCallId: z.string().optional(),
    parentSubagentId: z.string().optional(),
    state: z.enum(['running', 'done', 'error']),
    result: z.string().optional(),
    error: z.string().optional(),
    startedAt: z.number(),
    receivedAt: z.number().optional().describe("The receipt clock's time of the start (a client's live timer)."),
    endedAt: z.number().optional(),
    durationMs: z.number().optional(),
  })
  .describe('A nested agent run: its start and finish together (its data part keeps only the latest event).');

export const sourceInfoSchema = z.object(sourceFields).describe('A source the answer drew on.');

export const errorInfoSchema = z
  .object({
    message: z.string(),
    code: z.string().optional(),
    fatal: z.boolean(),
    seq: z.number().int(),
    ts: z.number(),
    where: locationSchema.optional(),
    providerMetadata: pm,
  })
  .describe('An error of the run.');

export const pendingSchema = z
  .object({
    approvalIds: z.array(z.string()).optional(),
    toolCallIds: z.array(z.string()).optional(),
    interruptIds: z.array(z.string()).optional(),
  })
  .describe('What the run ended waiting for (run-finish `pending`).');

export const assistantMetadataSchema = z
  .object({
    status: messageStatusSchema,
    processing: z.array(reasoningSpanSchema).describe('Processing blocks (agent status, "Processed in 2s").'),
    thinking: z.array(thinkingSpanSchema).describe('Thinking blocks (model reasoning, "Thought for 4s").'),
    parts: z.array(messagePartSchema).describe('Every block in order.'),
    todos: z.array(todoSchema).optional().describe('The latest todo list.'),
    state: json.optional().describe("The agent state: the run's last state-snapshot with the state-deltas after it applied."),
    stateDeltas: z
      .array(z.array(jsonPatchOperationSchema))
      .optional()
      .describe(
        'The state-delta patches of a run that sent no state-snapshot, in order: they apply to the state the chat held before the run (as a client applies them to the state it holds).',
      ),
    activity: z
      .object({ status: z.string(), message: z.string().optional() })
      .optional()
      .describe('The latest `status` event of the run: a transient status (queued, retrying, searching…).'),
    steps: z.array(stepInfoSchema),
    subagents: z.array(subagentInfoSchema).optional().describe('The nested agent runs, in the order they started.'),
    sources: z.array(sourceInfoSchema),
    usage: usageSchema
      .optional()
      .describe("Total usage: run-finish's, else the last total usage event, else the sum of steps and increments."),
    model: z.string().optional(),
    provider: z.string().optional(),
    agent: z.string().optional(),
    stopReason: finishReasonSchema.optional().describe("run-finish's finishReason."),
    rawStopReason: z.string().optional(),
    abortReason: z.string().optional(),
    error: errorInfoSchema.optional().describe('The first fatal error (else the last error of a run that ended in error).'),
    errors: z.array(errorInfoSchema),
    startedAt: z.number().optional().describe('`ts` of run-start.'),
    endedAt: z.number().optional().describe('`ts` of the last event.'),
    durationMs: z.number().optional(),
    lastSeq: z.number().int().describe('seq of the last event folded (-1 before any).'),
    runMetadata: z.record(z.string(), json).optional().describe("run-start's `metadata` (the AI SDK's messageMetadata)."),
    providerMetadata: pm.describe("run-start's and run-finish's providerMetadata, merged."),
    pending: pendingSchema.optional(),
    runs: z
      .array(z.string())
      .optional()
      .describe(
        'The runs that built the message, oldest first, when there is more than one (a run that ended waiting and its continuations).',
      ),
    runSeqs: z.array(z.number().int()).optional().describe('With `runs`: the seq (as the parts number them) at which each run begins.'),
  })
  .describe('Everything an assistant message holds besides its final text.');

export const assistantMessageSchema = z
  .object({
    id: z.string(),
    chatId: z.string(),
    runId: z.string(),
    role: z.literal('assistant'),
    content: z.string().describe('The final text: every text delta of the main agent, in order.'),
    metadata: assistantMetadataSchema,
    persistenceState: persistenceStateSchema,
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .describe('The assistant message of a run (and of the continuation runs that answered what it waited for).');

export const userMessageSchema = z
  .object({
    id: z.string(),
    chatId: z.string(),
    runId: z.string().optional().describe('The run that answers it.'),
    role: z.enum(['user', 'system']),
    content: z.string(),
    metadata: z.record(z.string(), json).describe("`parts`: the client's UIMessage parts (files, …) when it sent them."),
    persistenceState: persistenceStateSchema,
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .describe('A user (or system) message, stored when a run starts.');

export const persistedMessageSchema = z.union([assistantMessageSchema, userMessageSchema]).describe('A message of a chat.');

/** The JSON Schema of the assistant message (draft 2020-12), written by `npm run schema`. */
export function messageJsonSchema(): Record<string, unknown> {
  return {
    $id: 'urn:switchboard:assistant-message:v1',
    title: 'Switchboard assistant message',
    ...z.toJSONSchema(assistantMessageSchema, { target: 'draft-2020-12' }),
  };
}
