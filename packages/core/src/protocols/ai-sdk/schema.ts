/**
 * Our own zod schema of the Vercel AI SDK UI message stream chunks, written from the protocol atlas
 * (§1), and a validator that also applies the client's assembly rules (`processUIMessageStream`).
 * Used by `switchboard validate --protocol ai-sdk` and by tests; like `model/schema.ts`, it loads
 * zod, so the encoder never imports it.
 */
import { z } from 'zod';
import { type ValidationIssue, type ValidationResult, zodIssues } from '../../model/validate.ts';
import { FINISH_REASONS } from '../../model/vocabulary.ts';

/** The data line the official server writes after the last chunk. */
export const AI_SDK_DONE = '[DONE]';

const json = z.json();

/** `Record<provider, JSONObject>`, e.g. `{ anthropic: { signature } }`. */
const providerMetadata = z.record(z.string(), z.record(z.string(), json)).optional();
const toolMetadata = z.record(z.string(), json).optional();

/**
 * A key whose value may be anything (null included) but which must be there: `z.unknown()` alone
 * would report a missing key as "expected nonoptional", so `present` checks for it instead.
 */
const anyValue = z.unknown().optional();

function present(key: string): [(value: Record<string, unknown>) => boolean, { path: string[]; message: string }] {
  return [(value) => key in value, { path: [key], message: `expected the key "${key}" (any value)` }];
}

const finishReason = z.enum(FINISH_REASONS);

const citationSource = z.union([
  z.looseObject({
    type: z.literal('source'),
    sourceType: z.literal('url'),
    id: z.string(),
    url: z.string(),
    title: z.string().optional(),
    providerMetadata,
  }),
  z.looseObject({
    type: z.literal('source'),
    sourceType: z.literal('document'),
    id: z.string(),
    mediaType: z.string(),
    title: z.string(),
    filename: z.string().optional(),
    providerMetadata,
  }),
]);

const citation = z.looseObject({
  source: citationSource,
  startIndex: z.number().optional(),
  endIndex: z.number().optional(),
  citedText: z.string().optional(),
});

/** Fields shared by the tool chunks that describe a call. */
const toolCall = {
  toolCallId: z.string(),
  toolName: z.string(),
  providerExecuted: z.boolean().optional(),
  providerMetadata,
  toolMetadata,
  dynamic: z.boolean().optional(),
  title: z.string().optional(),
};

/** Fields shared by the tool output chunks. */
const toolResult = {
  toolCallId: z.string(),
  providerExecuted: z.boolean().optional(),
  providerMetadata,
  toolMetadata,
  dynamic: z.boolean().optional(),
};

const steeringPart = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string(), providerMetadata }),
  z.looseObject({
    type: z.literal('file'),
    mediaType: z.string(),
    url: z.string(),
    filename: z.string().optional(),
    providerReference: z.record(z.string(), z.string()).optional(),
    providerMetadata,
  }),
]);

/** One loose object schema per chunk type (every member accepts unknown keys, as the official schema does). */
export const AI_SDK_CHUNK_SCHEMAS = {
  start: z.looseObject({ type: z.literal('start'), messageId: z.string().optional(), messageMetadata: anyValue }),
  'start-step': z.looseObject({ type: z.literal('start-step') }),
  'finish-step': z.looseObject({ type: z.literal('finish-step') }),
  'reset-step': z.looseObject({ type: z.literal('reset-step') }),
  'text-start': z.looseObject({ type: z.literal('text-start'), id: z.string(), providerMetadata }),
  'text-delta': z.looseObject({ type: z.literal('text-delta'), id: z.string(), delta: z.string(), providerMetadata }),
  'text-end': z.looseObject({ type: z.literal('text-end'), id: z.string(), citations: z.array(citation).optional(), providerMetadata }),
  'reasoning-start': z.looseObject({ type: z.literal('reasoning-start'), id: z.string(), providerMetadata }),
  'reasoning-delta': z.looseObject({ type: z.literal('reasoning-delta'), id: z.string(), delta: z.string(), providerMetadata }),
  'reasoning-end': z.looseObject({ type: z.literal('reasoning-end'), id: z.string(), providerMetadata }),
  'tool-input-start': z.looseObject({
    type: z.literal('tool-input-start'),
    ...toolCall,
    inputEncoding: z.enum(['json', 'text']).optional(),
  }),
  'tool-input-delta': z.looseObject({ type: z.literal('tool-input-delta'), toolCallId: z.string(), inputTextDelta: z.string() }),
  'tool-input-available': z
    .looseObject({ type: z.literal('tool-input-available'), ...toolCall, input: anyValue })
    .refine(...present('input')),
  'tool-input-error': z
    .looseObject({ type: z.literal('tool-input-error'), ...toolCall, input: anyValue, errorText: z.string() })
    .refine(...present('input')),
  'tool-output-available': z
    .looseObject({
      type: z.literal('tool-output-available'),
      ...toolResult,
      output: anyValue,
      preliminary: z.boolean().optional(),
    })
    .refine(...present('output')),
  'tool-output-error': z.looseObject({ type: z.literal('tool-output-error'), ...toolResult, errorText: z.string() }),
  'tool-output-denied': z.looseObject({ type: z.literal('tool-output-denied'), toolCallId: z.string() }),
  'tool-approval-request': z.looseObject({
    type: z.literal('tool-approval-request'),
    approvalId: z.string(),
    toolCallId: z.string(),
    approvalDescriptor: z.unknown().optional(),
    inputSchemaInput: z.unknown().optional(),
    reason: z.string().optional(),
    isAutomatic: z.boolean().optional(),
    signature: z.string().optional(),
  }),
  'tool-approval-response': z.looseObject({
    type: z.literal('tool-approval-response'),
    approvalId: z.string(),
    approved: z.boolean(),
    reason: z.string().optional(),
    providerExecuted: z.boolean().optional(),
    providerMetadata,
  }),
  'source-url': z.looseObject({
    type: z.literal('source-url'),
    sourceId: z.string(),
    url: z.string(),
    title: z.string().optional(),
    providerMetadata,
  }),
  'source-document': z.looseObject({
    type: z.literal('source-document'),
    sourceId: z.string(),
    mediaType: z.string(),
    title: z.string(),
    filename: z.string().optional(),
    providerMetadata,
  }),
  file: z.looseObject({ type: z.literal('file'), url: z.string(), mediaType: z.string(), providerMetadata }),
  'reasoning-file': z.looseObject({ type: z.literal('reasoning-file'), url: z.string(), mediaType: z.string(), providerMetadata }),
  // The TS type says `${string}.${string}`, but the runtime schema accepts any string.
  custom: z.looseObject({ type: z.literal('custom'), kind: z.string(), providerMetadata }),
  'steering-message': z.looseObject({ type: z.literal('steering-message'), id: z.string(), parts: z.array(steeringPart) }),
  'message-metadata': z
    .looseObject({ type: z.literal('message-metadata'), messageMetadata: anyValue })
    .refine(...present('messageMetadata')),
  error: z.looseObject({ type: z.literal('error'), errorText: z.string() }),
  finish: z.looseObject({ type: z.literal('finish'), finishReason: finishReason.optional(), messageMetadata: anyValue }),
  abort: z.looseObject({ type: z.literal('abort'), reason: z.string().optional() }),
} as const;

/** The fixed chunk types (everything but `data-*`). */
export type AiSdkChunkType = keyof typeof AI_SDK_CHUNK_SCHEMAS;

/**
 * One AI SDK UI message stream chunk: a type of the schemas above or `data-<name>`, with loose fields
 * (the official schema accepts unknown keys). The encoder and the reducer use this type.
 */
export type AiSdkChunk = { type: AiSdkChunkType | `data-${string}` } & Record<string, unknown>;

/** `data-<name>` chunks: application data; the `data` key must be present (its value may be anything). */
export const aiSdkDataChunkSchema = z
  .looseObject({
    // abort: in the union, a chunk that is not data-* then reports the issues of its own type.
    type: z.string().refine((t) => t.startsWith('data-'), { message: 'expected a type of the form "data-<name>"', abort: true }),
    id: z.string().optional(),
    data: anyValue,
    transient: z.boolean().optional(),
  })
  .refine(...present('data'));

const fixedChunkSchema = z.discriminatedUnion(
  'type',
  Object.values(AI_SDK_CHUNK_SCHEMAS) as unknown as [
    (typeof AI_SDK_CHUNK_SCHEMAS)[AiSdkChunkType],
    ...(typeof AI_SDK_CHUNK_SCHEMAS)[AiSdkChunkType][],
  ],
);

/**
 * Any one UI message stream chunk (the `UIMessageChunk` union). As a union its failures are often
 * just "Invalid input"; {@link validateAiSdkChunks} checks each chunk against its own type instead.
 */
export const aiSdkChunkSchema = z.union([fixedChunkSchema, aiSdkDataChunkSchema]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks one chunk against the schema of its own type (clearer messages than the whole union's). */
function checkShape(index: number, chunk: unknown, issues: ValidationIssue[]): chunk is { type: string } & Record<string, unknown> {
  if (!isRecord(chunk)) {
    issues.push({
      index,
      path: '',
      message: `expected a chunk object, got ${chunk === null ? 'null' : Array.isArray(chunk) ? 'an array' : typeof chunk}`,
    });
    return false;
  }
  if (typeof chunk.type !== 'string') {
    issues.push({ index, path: 'type', message: 'expected a string chunk type' });
    return false;
  }
  const schema = chunk.type.startsWith('data-')
    ? aiSdkDataChunkSchema
    : Object.hasOwn(AI_SDK_CHUNK_SCHEMAS, chunk.type)
      ? AI_SDK_CHUNK_SCHEMAS[chunk.type as AiSdkChunkType]
      : undefined;
  if (!schema) {
    issues.push({
      index,
      path: 'type',
      message: `unknown chunk type ${JSON.stringify(chunk.type)}; expected one of: ${Object.keys(AI_SDK_CHUNK_SCHEMAS).join(', ')}, data-<name>`,
    });
    return false;
  }
  const parsed = schema.safeParse(chunk);
  if (parsed.success) return true;
  issues.push(...zodIssues(index, parsed.error));
  return false;
}

/**
 * Checks a UI message stream: every chunk against {@link aiSdkChunkSchema}, `[DONE]` (the string)
 * only as the last item (with `complete`: required, after a `finish` / `abort`, with no tool input left streaming), and the official client's assembly rules: text / reasoning `-delta` and
 * `-end` need an open `-start` with that id; `tool-input-delta` needs a `tool-input-start`;
 * `tool-output-*`, `tool-output-denied` and `tool-approval-request` need a known toolCallId;
 * `tool-approval-response` needs a requested approvalId; nothing but `[DONE]` after `finish` / `abort`.
 * With `continuation` (a run that continues the client's last assistant message, as after an approval or
 * a client tool output), tool calls and approvals it does not show are taken to be in that message.
 *
 * @example
 * const { ok, issues } = validateAiSdkChunks([{ type: 'start' }, { type: 'finish' }, '[DONE]']);
 */
export function validateAiSdkChunks(chunks: unknown[], options: { complete?: boolean; continuation?: boolean } = {}): ValidationResult {
  const issues: ValidationIssue[] = [];
  const inputOpen = new Set<string>(); // tool inputs started and not yet available / errored
  const openText = new Set<string>();
  const openReasoning = new Set<string>();
  const streamingTools = new Set<string>();
  const tools = new Set<string>();
  const approvals = new Set<string>();
  // Tool calls of the current step: `reset-step` discards them (the client drops the step's parts).
  let stepTools: string[] = [];
  let ended: string | undefined;

  const knowTool = (id: string): void => {
    if (!tools.has(id)) stepTools.push(id);
    tools.add(id);
  };

  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index];
    const issue = (path: string, message: string) => issues.push({ index, path, message });
    if (chunk === AI_SDK_DONE) {
      if (index !== chunks.length - 1) issue('', `expected ${AI_SDK_DONE} only as the last event`);
      continue;
    }
    if (ended !== undefined) issue('type', `expected nothing but ${AI_SDK_DONE} after "${ended}"`);
    if (!checkShape(index, chunk, issues)) continue;
    const c = chunk as Record<string, string> & { type: string };
    switch (c.type) {
      case 'text-start':
        openText.add(c.id);
        break;
      case 'reasoning-start':
        openReasoning.add(c.id);
        break;
      case 'text-delta':
      case 'text-end':
      case 'reasoning-delta':
      case 'reasoning-end': {
        const kind = c.type.split('-')[0];
        const open = kind === 'text' ? openText : openReasoning;
        if (!open.has(c.id)) issue('id', `expected an open ${kind} part "${c.id}" (no ${kind}-start before this ${c.type})`);
        else if (c.type.endsWith('-end')) open.delete(c.id);
        break;
      }
      case 'tool-input-start':
        streamingTools.add(c.toolCallId);
        inputOpen.add(c.toolCallId);
        knowTool(c.toolCallId);
        break;
      case 'tool-input-delta':
        if (!streamingTools.has(c.toolCallId)) issue('toolCallId', `expected a tool-input-start for "${c.toolCallId}" first`);
        break;
      case 'tool-input-available':
      case 'tool-input-error':
        inputOpen.delete(c.toolCallId);
        knowTool(c.toolCallId);
        break;
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied':
      case 'tool-approval-request':
        if (!tools.has(c.toolCallId) && !options.continuation)
          issue('toolCallId', `expected a known tool call "${c.toolCallId}" (no tool-input-* for it before this ${c.type})`);
        else if (c.type === 'tool-approval-request') approvals.add(c.approvalId);
        break;
      case 'tool-approval-response':
        if (!approvals.has(c.approvalId) && !options.continuation)
          issue('approvalId', `expected a tool-approval-request with approvalId "${c.approvalId}" first`);
        break;
      case 'start-step':
        stepTools = [];
        break;
      case 'reset-step':
        openText.clear();
        openReasoning.clear();
        streamingTools.clear();
        inputOpen.clear();
        for (const id of stepTools) tools.delete(id);
        stepTools = [];
        break;
      case 'finish':
      case 'abort':
        ended = c.type;
        break;
    }
  }
  if (options.complete) {
    // A whole stream: what the client would show as still streaming is a truncation.
    const last = Math.max(chunks.length - 1, 0);
    const issue = (path: string, message: string) => issues.push({ index: last, path, message });
    // Text / reasoning parts left open are not counted: the official server leaves them open after an error.
    for (const id of inputOpen) issue('toolCallId', `tool input "${id}" is still streaming at the end (no tool-input-available)`);
    if (ended === undefined) issue('type', 'the stream ends without "finish" or "abort" (truncated)');
    if (chunks.at(-1) !== AI_SDK_DONE) issue('', `the stream ends without ${AI_SDK_DONE}`);
  }
  return { ok: issues.length === 0, issues };
}
