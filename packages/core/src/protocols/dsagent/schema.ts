/**
 * Zod schemas of DSAgentRunMessage (DeepSearchAgents' v2 API; field names as its `web_ui.py` and
 * `models.py` give them), as the DSAgent encoder writes them: `{role, content, metadata,
 * message_id, timestamp, session_id, step_number}`, with `metadata` discriminated on
 * `message_type`. Switchboard's additions (marked "extension") carry what a round trip needs.
 *
 * Like `model/schema.ts` this module loads zod, so the encoder and the reader import its types
 * only. `validateDsAgentMessages` checks a whole stream: every message against its schema,
 * DeepSearchAgents' component routing, the streaming protocol (initial → deltas → final with the
 * whole content) and one tool_call per tool id.
 */
import { z } from 'zod';
import { checkEach, type ValidationResult } from '../../model/validate.ts';
import { FINISH_REASONS } from '../../model/vocabulary.ts';
import { routeComponent } from './routing.ts';

const json = z.json();
const finishReason = z.enum(FINISH_REASONS);
const planningType = z.enum(['initial', 'update']);
const status = z.enum(['streaming', 'done']);

/** Token counts of a step, as web_ui.py's get_step_metadata writes them. */
const tokenUsage = z.strictObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
});
const timing = z.strictObject({ duration: z.number().describe('Seconds.') });
const stepError = z.strictObject({ message: z.string(), type: z.string() });

/** Streaming fields: initial (empty, is_initial_stream) → deltas (is_delta) → final (streaming false). */
const streaming = {
  streaming: z.boolean(),
  stream_id: z.string().describe('`msg-<step>-<message_type>-stream`, unique in the run.'),
  is_initial_stream: z.literal(true).optional(),
  is_delta: z.literal(true).optional(),
};
/** Fields of an initial / final stream message only (deltas carry the streaming fields alone). */
const blockFields = {
  block_id: z.string().optional().describe('Extension: the canonical block id (initial and final messages).'),
  reasoning_variant: z.literal('processing').optional().describe('Extension: processing (agent status) reasoning.'),
};

/** What a step's footer (planning or action) reports of the step. */
const footerFields = {
  footer_label: z.string(),
  step_name: z.string(),
  token_usage: tokenUsage.optional(),
  timing: timing.optional(),
  error: stepError.optional(),
  finish_reason: finishReason.optional().describe('Extension: the canonical finish reason of the step.'),
};

function meta<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ message_type: z.literal(type) }).extend(shape);
}

/** The routed component (the validator checks it against DeepSearchAgents' routing). */
const component = z.enum(['chat', 'webide', 'terminal']);

export const planningHeaderSchema = meta('planning_header', {
  component,
  step_type: z.literal('planning'),
  planning_type: planningType,
  is_update_plan: z.boolean(),
  planning_step_number: z.number().int(),
  agent_status: z.enum(['initial_planning', 'update_planning']),
  is_active: z.boolean(),
  status: z.literal('done'),
  step_id: z.string().describe('Extension: the canonical step id.'),
});
export const planningContentSchema = meta('planning_content', {
  component,
  step_type: z.literal('planning'),
  planning_type: planningType.optional(),
  planning_step_number: z.number().int().optional(),
  agent_status: z.enum(['initial_planning', 'update_planning']),
  is_active: z.boolean(),
  status,
  ...streaming,
  content_length: z.number().int().optional(),
  ...blockFields,
});
export const planningFooterSchema = meta('planning_footer', {
  component,
  step_type: z.literal('planning'),
  planning_type: planningType,
  planning_step_number: z.number().int(),
  status: z.literal('done'),
  ...footerFields,
});
export const separatorSchema = meta('separator', {
  component,
  step_type: z.enum(['planning', 'action']),
  status: z.literal('done'),
});
export const actionHeaderSchema = meta('action_header', {
  component,
  step_type: z.literal('action'),
  status: z.literal('done'),
  step_id: z.string().describe('Extension: the canonical step id.'),
  step_kind: z.enum(['model', 'other']).optional().describe('Extension: the canonical step kind when not "action".'),
});
export const actionThoughtSchema = meta('action_thought', {
  component,
  step_type: z.literal('action'),
  agent_status: z.literal('thinking'),
  is_active: z.boolean(),
  status,
  ...streaming,
  is_raw_thought: z.literal(true).optional(),
  thoughts_content: z.string().max(63).optional().describe('The first 60 characters, "..." when cut.'),
  full_thought_length: z.number().int().optional(),
  ...blockFields,
});
export const assistantMessageSchema = meta('assistant_message', {
  component,
  step_type: z.enum(['planning', 'action']).optional(),
  agent_status: z.literal('writing'),
  is_active: z.boolean(),
  status,
  ...streaming,
  ...blockFields,
});
export const toolCallSchema = meta('tool_call', {
  component,
  step_type: z.literal('action'),
  tool_name: z.string(),
  tool_id: z.string(),
  tool_args_summary: z.string(),
  is_python_interpreter: z.boolean(),
  status: z.literal('done'),
  tool_args: json.describe('Extension: the whole tool input.'),
});
export const toolInvocationSchema = meta('tool_invocation', {
  component,
  step_type: z.literal('action'),
  tool_name: z.string(),
  tool_id: z.string().describe('Extension: links the invocation to its tool_call.'),
  agent_status: z.enum(['coding', 'actions_running']),
  is_active: z.literal(false),
  title: z.string(),
  status: z.literal('done'),
  code: z.string().optional(),
  language: z.literal('python').optional(),
  code_lines: z.number().int().optional(),
  has_imports: z.boolean().optional(),
});
const observationShape = {
  component,
  step_type: z.literal('action'),
  tool_name: z.string().nullable(),
  tool_id: z.string().describe('Extension: the tool call this output answers.'),
  agent_status: z.literal('actions_running'),
  is_active: z.literal(false),
  title: z.string(),
  status: z.literal('done'),
  output_lines: z.number().int(),
  has_error: z.boolean(),
  output_format: z.literal('json').optional().describe('Extension: the output is JSON (not text) inside the fence.'),
};
export const observationSchema = meta('observation', observationShape);
export const executionLogsSchema = meta('execution_logs', observationShape);
export const observationImageSchema = meta('observation_image', {
  component,
  step_type: z.literal('action'),
  title: z.string(),
  status: z.literal('done'),
  image_path: z.string(),
  mime_type: z.string(),
  filename: z.string().optional(),
});
export const errorSchema = meta('error', {
  component,
  step_type: z.enum(['planning', 'action', 'final_answer']).optional(),
  title: z.string().optional(),
  status: z.literal('done'),
  error: z.literal(true),
  error_type: z.string(),
  tool_name: z.string().optional(),
  tool_id: z.string().optional(),
  tool_output: json.optional().describe('Extension: the output of a failed tool call.'),
  error_code: z.string().optional().describe('Extension: the canonical error code.'),
  fatal: z.boolean().describe('Extension: the run cannot go on.'),
});
export const actionFooterSchema = meta('action_footer', {
  component,
  step_type: z.literal('action'),
  status: z.literal('done'),
  ...footerFields,
});
export const finalAnswerSchema = meta('final_answer', {
  component,
  step_type: z.literal('final_answer'),
  agent_status: z.literal('writing'),
  is_active: z.literal(false),
  status: z.literal('done'),
  is_final_answer: z.literal(true),
  has_structured_data: z.literal(true).optional(),
  answer_title: z.string().optional(),
  answer_content: z.string().optional(),
  answer_sources: z.array(json).optional(),
  answer_format: z.literal('json').optional(),
});

/** Extension: a tool call that waits for a person's approval (the chat shows Approve / Deny). */
export const toolApprovalRequestSchema = meta('tool_approval_request', {
  component,
  approval_id: z.string(),
  tool_id: z.string(),
  tool_name: z.string().optional(),
  reason: z.string().optional(),
  title: z.string(),
  status: z.literal('pending'),
});
/** Extension: the answer to a tool approval. */
export const toolApprovalResponseSchema = meta('tool_approval_response', {
  component,
  approval_id: z.string(),
  tool_id: z.string().optional(),
  approved: z.boolean(),
  reason: z.string().optional(),
  by: z.string().optional(),
  title: z.string(),
  status: z.literal('done'),
});
/** Extension: the agent stops to ask for something (an interrupt), and the answer. */
export const interruptSchema = meta('interrupt', {
  component,
  interrupt_id: z.string(),
  reason: z.string(),
  tool_id: z.string().optional(),
  value: json.optional(),
  response_schema: z.record(z.string(), json).optional(),
  expires_at: z.string().optional(),
  title: z.string(),
  status: z.literal('pending'),
});
export const interruptResponseSchema = meta('interrupt_response', {
  component,
  interrupt_id: z.string(),
  interrupt_status: z.enum(['resolved', 'cancelled']),
  payload: json.optional(),
  by: z.string().optional(),
  title: z.string(),
  status: z.literal('done'),
});

/** The metadata of every message type, discriminated on `message_type`. */
export const dsAgentMetadataSchema = z.discriminatedUnion('message_type', [
  planningHeaderSchema,
  planningContentSchema,
  planningFooterSchema,
  separatorSchema,
  actionHeaderSchema,
  actionThoughtSchema,
  assistantMessageSchema,
  toolCallSchema,
  toolInvocationSchema,
  observationSchema,
  executionLogsSchema,
  observationImageSchema,
  errorSchema,
  actionFooterSchema,
  finalAnswerSchema,
  toolApprovalRequestSchema,
  toolApprovalResponseSchema,
  interruptSchema,
  interruptResponseSchema,
]);

/** One DSAgentRunMessage, as `websocket.send_json(message.model_dump(mode='json'))` sends it. */
export const dsAgentRunMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  metadata: dsAgentMetadataSchema,
  message_id: z.string().min(1),
  timestamp: z.iso.datetime(),
  session_id: z.string().nullable().optional(),
  step_number: z.number().int().nullable().optional(),
});

export type DsAgentRunMessage = z.infer<typeof dsAgentRunMessageSchema>;
export type DsAgentMetadata = z.infer<typeof dsAgentMetadataSchema>;
export type DsAgentMessageType = DsAgentMetadata['message_type'];

/**
 * Checks a stream of DSAgentRunMessages: each against its schema; the component DeepSearchAgents'
 * routing gives; every stream opened by an initial message, then deltas, then one final message
 * whose content is the deltas joined (`deltas: 'accumulated'`: the last delta); one tool_call per
 * tool id.
 */
export function validateDsAgentMessages(
  messages: Iterable<unknown>,
  options: { deltas?: 'increment' | 'accumulated' } = {},
): ValidationResult {
  const accumulated = options.deltas === 'accumulated';
  const streams = new Map<string, string[]>();
  const done = new Set<string>();
  const toolIds = new Set<string>();
  const { issues, count } = checkEach(messages, dsAgentRunMessageSchema, (m, issue) => {
    const md = m.metadata;
    const toolName = 'tool_name' in md ? (md.tool_name ?? undefined) : undefined;
    const component = routeComponent(toolName, md.message_type, m.content);
    if (md.component !== component) issue('metadata.component', `expected "${component}" (the DSAgent routing), got "${md.component}"`);
    if ('stream_id' in md) {
      const id = md.stream_id;
      if (done.has(id)) issue('metadata.stream_id', `stream "${id}" already ended`);
      else if (md.is_initial_stream) {
        if (streams.has(id)) issue('metadata.stream_id', `stream "${id}" opened twice`);
        else if (m.content !== '') issue('content', 'expected an empty initial stream message');
        streams.set(id, []);
      } else if (md.is_delta) {
        const parts = streams.get(id);
        if (!parts) issue('metadata.stream_id', `a delta of stream "${id}" before its initial message`);
        else if (accumulated) parts[0] = m.content;
        else parts.push(m.content);
      } else {
        const parts = streams.get(id);
        if (!parts) issue('metadata.stream_id', `the final message of stream "${id}" before its initial message`);
        else if (parts.join('') !== m.content) issue('content', `expected the whole content of stream "${id}" (its deltas)`);
        if (md.streaming) issue('metadata.streaming', 'expected false on the final message of a stream');
        streams.delete(id);
        done.add(id);
      }
    }
    if (md.message_type === 'tool_call') {
      if (toolIds.has(md.tool_id)) issue('metadata.tool_id', `tool_call "${md.tool_id}" sent twice`);
      toolIds.add(md.tool_id);
    }
  });
  for (const id of streams.keys()) issues.push({ index: count - 1, path: 'metadata.stream_id', message: `stream "${id}" never ended` });
  return { ok: issues.length === 0, issues };
}
