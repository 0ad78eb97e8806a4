/**
 * Encoder for DSAgentRunMessage (DeepSearchAgents' v2 WebSocket messages, what its `web_ui.py`
 * makes of smolagents' steps). Canonical events in, `{role, content, metadata, message_id,
 * timestamp, session_id, step_number}` messages out; the metadata drives the frontend: `component`
 * (chat / webide / terminal, by DeepSearchAgents' routing), `message_type`, step fields.
 *
 * - planning step → planning_header, planning_content (its reasoning, streamed), planning_footer
 *   (tokens, timing), separator;
 * - action step (and a model step of a plain LLM run, a step of kind other) → action_header
 *   ("**Step N**"), action_thought (reasoning, streamed; `thoughts_content` = the first 60
 *   characters), tool_call badge + tool_invocation per call (python_interpreter code → webide),
 *   observation (other tools) / execution_logs (python_interpreter) → terminal, error, action_footer,
 *   separator; answer text of such a step is a streamed `assistant_message` (chat);
 * - final-answer step → one final_answer (structured: `has_structured_data`, `answer_title`,
 *   `answer_content`, `answer_sources`);
 * - streaming: an initial message (empty, `streaming`, `is_initial_stream`), deltas (`is_delta`;
 *   the increment by default, the whole text so far with `deltas: 'accumulated'`, which is what
 *   DeepSearchAgents' own server sends and its frontend expects), a final message (`streaming:
 *   false`, the whole content, joined once); all three share `stream_id`;
 * - `message_id`: `msg_<hex>`, one per message (DeepSearchAgents' own form), derived from the run id,
 *   the event's seq and the message's place among that event's messages, so a replay gives the same ids.
 * - a person in the loop (extensions): tool_approval_request / tool_approval_response and interrupt /
 *   interrupt_response chat messages (a client tool call needs none: its tool_call is the message);
 * See docs/protocols/dsagent.md for the table both ways and what is lost; `reader.ts` reads
 * it back.
 */

import { type Machine, writeMachine } from '../../machine.ts';
import type { CanonicalEvent, EventOf, Json, ProviderMetadata, Usage } from '../../model/events.ts';
import { PYTHON, routeComponent } from './routing.ts';
import type { DsAgentRunMessage } from './schema.ts';

export type { DsAgentRunMessage } from './schema.ts';

/** FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** `msg_<hex>`: the run (hashed), the event's seq and the k-th message of that event — unique per message in a run. */
export function messageIdOf(runId: string, seq: number, k: number): string {
  return `msg_${fnv1a(runId)}${seq.toString(16).padStart(8, '0')}${k.toString(16).padStart(4, '0')}`;
}

export interface DsAgentEncoderOptions {
  /** `session_id` of every message. Default: the run's `chatId` (unless empty), else its run id. */
  sessionId?: string;
  /**
   * Content of delta messages: `increment` (the new text only, as DeepSearchAgents' StreamEvent
   * flow document describes) or `accumulated` (the whole text so far, as DeepSearchAgents' server
   * sends it and its frontend replaces it). Default increment.
   */
  deltas?: 'increment' | 'accumulated';
}

/** The first 60 characters, with "..." when cut (DeepSearchAgents: "action thoughts truncated to 60 chars"). */
export function thoughtsPreview(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** web_ui.py's footnote: `**label** | Input tokens: 1,234 | Output tokens: 56 | Duration: 1.23s`, greyed. */
export function footnote(label: string, usage: Usage | undefined, durationMs: number | undefined): string {
  let text = `**${label}**`;
  if (usage?.inputTokens !== undefined && usage.outputTokens !== undefined)
    text += ` | Input tokens: ${thousands(usage.inputTokens)} | Output tokens: ${thousands(usage.outputTokens)}`;
  if (durationMs) text += ` | Duration: ${Math.round(durationMs / 10) / 100}s`;
  return `<span style="color: #bbbbc2; font-size: 12px;">${text}</span>`;
}

/** web_ui.py's argument summary of a tool_call badge. */
function argsSummary(name: string, input: Json): string {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    if (name === 'final_answer' && 'answer' in input) {
      const answer = input.answer;
      if (typeof answer === 'string' && answer.trim().startsWith('{')) {
        try {
          const data = JSON.parse(answer);
          return `Title: ${typeof data?.title === 'string' ? data.title : 'Final Answer'}`;
        } catch {
          return 'Generating final answer...';
        }
      }
      return 'Generating final answer...';
    }
    const entries = Object.entries(input);
    let summary = entries
      .slice(0, 3)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
    if (entries.length > 3) summary += ` ... (${entries.length} total args)`;
    return summary;
  }
  return (typeof input === 'string' ? input : JSON.stringify(input)).slice(0, 100);
}

function isRecord(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A structured answer's provider fields (smolagents: `{title, sources, structured: true}` on the text block). */
export function structuredOf(pm: ProviderMetadata | undefined): Record<string, Json> | undefined {
  if (!pm) return undefined;
  for (const k in pm) if (pm[k]?.structured === true) return pm[k];
  return undefined;
}

/**
 * The footer of a finished planning or action step (its label, token usage, duration, error and
 * finish reason) and the separator after it. One shape for the live encoder and the history.
 */
export function stepFooter(
  s: Pick<StepState, 'type' | 'planningType' | 'number' | 'error'>,
  usage: Usage | undefined,
  durationMs: number | undefined,
  finish: string | undefined,
): { content: string; md: Record<string, unknown>; separator: Record<string, unknown> } {
  const planning = s.type === 'planning';
  const label = planning
    ? s.planningType === 'update'
      ? 'Updated planning step'
      : 'Initial planning step'
    : s.number !== undefined
      ? `Step ${s.number}`
      : 'Step';
  const md: Record<string, unknown> = {
    component: 'chat',
    message_type: planning ? 'planning_footer' : 'action_footer',
    step_type: planning ? 'planning' : 'action',
  };
  if (planning) {
    md.planning_type = s.planningType ?? 'initial';
    md.planning_step_number = s.number ?? 1;
  }
  md.status = 'done';
  md.footer_label = label;
  md.step_name = label;
  if (usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined || usage.totalTokens !== undefined)) {
    const t: Record<string, number> = {};
    if (usage.inputTokens !== undefined) t.input_tokens = usage.inputTokens;
    if (usage.outputTokens !== undefined) t.output_tokens = usage.outputTokens;
    if (usage.totalTokens !== undefined) t.total_tokens = usage.totalTokens;
    md.token_usage = t;
  }
  if (durationMs !== undefined) md.timing = { duration: durationMs / 1000 };
  if (s.error) md.error = s.error;
  if (finish !== undefined) md.finish_reason = finish;
  const separator = { component: 'chat', message_type: 'separator', step_type: planning ? 'planning' : 'action', status: 'done' };
  return { content: footnote(label, usage, durationMs), md, separator };
}

/** The step counters of a DSAgent stream: planning steps so far, and the number of the last action step. */
export interface StepCounters {
  planning: number;
  lastAction: number;
}

/**
 * The header of a planning or action step, from its step-start (kind, name, number, smolagents'
 * `planning_type`) and the steps before it (`counters`, advanced here). One shape for the live
 * encoder and the history.
 */
export function stepHeader(
  start: { stepId: string; kind: string; name?: string; number?: number; providerMetadata?: ProviderMetadata },
  counters: StepCounters,
): { type: 'planning' | 'action'; number: number; planningType?: 'initial' | 'update'; content: string; md: Record<string, unknown> } {
  if (start.kind === 'planning') {
    counters.planning++;
    const pmType = start.providerMetadata?.smolagents?.planning_type;
    const planningType =
      start.name === 'initial' || start.name === 'update'
        ? start.name
        : pmType === 'initial' || pmType === 'update'
          ? pmType
          : counters.planning === 1
            ? 'initial'
            : 'update';
    const number = counters.lastAction + 1;
    const md = {
      component: 'chat',
      message_type: 'planning_header',
      step_type: 'planning',
      planning_type: planningType,
      is_update_plan: planningType === 'update',
      planning_step_number: number,
      agent_status: planningType === 'update' ? 'update_planning' : 'initial_planning',
      is_active: false,
      status: 'done',
      step_id: start.stepId,
    };
    return { type: 'planning', number, planningType, content: '', md };
  }
  const number = start.kind === 'action' && start.number !== undefined ? start.number : counters.lastAction + 1;
  counters.lastAction = Math.max(counters.lastAction, number);
  const md: Record<string, unknown> = {
    component: 'chat',
    message_type: 'action_header',
    step_type: 'action',
    status: 'done',
    step_id: start.stepId,
  };
  if (start.kind !== 'action') md.step_kind = start.kind === 'model' ? 'model' : 'other';
  return { type: 'action', number, content: `**Step ${number}**`, md };
}

/** An image the agent produced (a `file` of an image type), as the frontend's observation image. One shape for the live encoder and the history. */
export function observationImage(f: { url: string; mediaType: string; filename?: string }): {
  content: string;
  md: Record<string, unknown>;
} {
  const md: Record<string, unknown> = {
    component: 'chat',
    message_type: 'observation_image',
    step_type: 'action',
    title: '🖼️ Output Image',
    status: 'done',
    image_path: f.url,
    mime_type: f.mediaType,
  };
  if (f.filename !== undefined) md.filename = f.filename;
  return { content: `![Image](${f.url})`, md };
}

/**
 * The final answer message of a step: its text (or, for a structured answer in the providerMetadata,
 * the title, content and sources the frontend's answer card shows) and its metadata. One shape for
 * the live encoder and the history.
 */
export function finalAnswer(
  text: string,
  answerPm: ProviderMetadata | undefined,
  stepSources: Json[],
): { content: string; md: Record<string, unknown> } {
  const structured = structuredOf(answerPm);
  const md: Record<string, unknown> = {
    component: 'chat',
    message_type: 'final_answer',
    step_type: 'final_answer',
    agent_status: 'writing',
    is_active: false,
    status: 'done',
    is_final_answer: true,
  };
  const sources = Array.isArray(structured?.sources) ? structured.sources : stepSources;
  let content: string;
  if (structured) {
    content = '';
    md.has_structured_data = true;
    md.answer_title = typeof structured.title === 'string' ? structured.title : 'Final Answer';
    md.answer_content = text;
  } else content = `**Final answer:**\n${text}\n`;
  if (structured || sources.length > 0) md.answer_sources = sources;
  if (structured) md.answer_format = 'json';
  return { content, md };
}

export function isoTime(ts: number): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
}

type StepType = 'planning' | 'action' | 'final_answer';

interface StepState {
  id: string;
  type: StepType;
  number?: number;
  planningType?: 'initial' | 'update';
  /** The last tool failure of the step, for the footer's `error`. */
  error?: { message: string; type: string };
  /** Final-answer step: its text and start metadata, and its source events. */
  answer: string[];
  answerPm?: ProviderMetadata;
  sources: Json[];
  answered: boolean;
}

interface StreamState {
  streamId: string;
  messageType: 'planning_content' | 'action_thought' | 'assistant_message';
  stepType?: StepType;
  stepNumber?: number;
  planningType?: 'initial' | 'update';
  parts: string[];
  /** The text so far, for `deltas: 'accumulated'`. */
  text: string;
  variant?: 'processing';
}

/** The tool_call badge and the tool_invocation message of a complete tool input (web_ui.py's shapes). */
export function toolInvocation(e: Pick<EventOf<'tool-input-end'>, 'toolName' | 'toolCallId' | 'input'>): {
  badge: Record<string, unknown>;
  content: string;
  md: Record<string, unknown>;
} {
  const python = e.toolName === PYTHON;
  const badge: Record<string, unknown> = {
    component: 'chat',
    message_type: 'tool_call',
    step_type: 'action',
    tool_name: e.toolName,
    tool_id: e.toolCallId,
    tool_args_summary: argsSummary(e.toolName, e.input),
    is_python_interpreter: python,
    status: 'done',
    tool_args: e.input,
  };
  const code = python && isRecord(e.input) && typeof e.input.code === 'string' ? e.input.code : undefined;
  let content: string;
  if (code !== undefined) content = `\`\`\`python\n${code}\n\`\`\``;
  else if (e.toolName === 'final_answer' && isRecord(e.input) && 'answer' in e.input)
    content = typeof e.input.answer === 'string' ? e.input.answer : JSON.stringify(e.input.answer);
  else content = typeof e.input === 'string' ? e.input : JSON.stringify(e.input);
  const md: Record<string, unknown> = {
    component: routeComponent(e.toolName, 'tool_invocation', content),
    message_type: 'tool_invocation',
    step_type: 'action',
    tool_name: e.toolName,
    tool_id: e.toolCallId,
    agent_status: python ? 'coding' : 'actions_running',
    is_active: false,
    title: `🛠️ Used tool ${e.toolName}`,
    status: 'done',
  };
  if (code !== undefined) {
    md.code = code;
    md.language = 'python';
    md.code_lines = code.split('\n').length;
    md.has_imports = /^\s*(import|from)\s+/m.test(code);
  }
  return { badge, content, md };
}

/** The chat message of a person-in-the-loop event (our extensions); none for any other event. */
function waitMessage(e: CanonicalEvent, toolNames: ReadonlyMap<string, string>): { content: string; md: Record<string, unknown> }[] {
  switch (e.type) {
    case 'tool-approval-request': {
      const name = e.toolName ?? toolNames.get(e.toolCallId);
      const md: Record<string, unknown> = { component: 'chat', message_type: 'tool_approval_request', approval_id: e.approvalId };
      md.tool_id = e.toolCallId;
      if (name !== undefined) md.tool_name = name;
      if (e.reason !== undefined) md.reason = e.reason;
      md.title = `✋ Approve ${name ?? 'tool'}?`;
      md.status = 'pending';
      return [{ content: e.reason ?? '', md }];
    }
    case 'tool-approval-response': {
      const md: Record<string, unknown> = { component: 'chat', message_type: 'tool_approval_response', approval_id: e.approvalId };
      if (e.toolCallId !== undefined) md.tool_id = e.toolCallId;
      md.approved = e.approved;
      if (e.reason !== undefined) md.reason = e.reason;
      if (e.by !== undefined) md.by = e.by;
      md.title = e.approved ? '✅ Approved' : '🚫 Denied';
      md.status = 'done';
      return [{ content: e.reason ?? '', md }];
    }
    case 'interrupt': {
      const md: Record<string, unknown> = { component: 'chat', message_type: 'interrupt', interrupt_id: e.interruptId, reason: e.reason };
      if (e.toolCallId !== undefined) md.tool_id = e.toolCallId;
      if (e.value !== undefined) md.value = e.value;
      if (e.responseSchema !== undefined) md.response_schema = e.responseSchema;
      if (e.expiresAt !== undefined) md.expires_at = e.expiresAt;
      md.title = '✋ Input needed';
      md.status = 'pending';
      return [{ content: e.message ?? '', md }];
    }
    case 'interrupt-response': {
      const md: Record<string, unknown> = { component: 'chat', message_type: 'interrupt_response', interrupt_id: e.interruptId };
      md.interrupt_status = e.status;
      if (e.payload !== undefined) md.payload = e.payload;
      if (e.by !== undefined) md.by = e.by;
      md.title = e.status === 'resolved' ? '✅ Answered' : '🚫 Cancelled';
      md.status = 'done';
      return [{ content: '', md }];
    }
    default:
      return [];
  }
}

/** Creates the DSAgentRunMessage encoder (push canonical events, get messages). */
export function createDsAgentEncoder(options: DsAgentEncoderOptions = {}): Machine<CanonicalEvent, DsAgentRunMessage> {
  const accumulated = options.deltas === 'accumulated';
  let sessionId = options.sessionId;
  let step: StepState | undefined;
  const counters: StepCounters = { planning: 0, lastAction: 0 };
  let ended = false;
  const streams = new Map<string, StreamState>();
  /** Text blocks of a final-answer step (buffered: the answer goes out whole). */
  const answerBlocks = new Set<string>();
  const streamIds = new Set<string>();
  /** Steps that started inside an open step: their messages belong to the open one. */
  const nested = new Set<string>();
  const toolNames = new Map<string, string>();
  const toolCalls = new Set<string>();
  const toolResults = new Set<string>();

  function uniqueStreamId(base: string): string {
    let id = base;
    for (let n = 2; streamIds.has(id); n++) id = `${base}-${n}`;
    streamIds.add(id);
    return id;
  }

  function encode(e: CanonicalEvent, out: DsAgentRunMessage[]): void {
    const timestamp = isoTime(e.ts);
    // As the WebSocket encoder: an empty chat id falls back to the run's.
    sessionId ??= (e.type === 'run-start' && e.chatId) || e.runId;
    const session = sessionId;
    let k = 0;

    const send = (content: string, metadata: Record<string, unknown>, stepNumber: number | undefined): void => {
      const m: Record<string, unknown> = {
        role: 'assistant',
        content,
        metadata,
        message_id: messageIdOf(e.runId, e.seq, k),
        timestamp,
        session_id: session,
      };
      k++;
      if (stepNumber !== undefined) m.step_number = stepNumber;
      out.push(m as DsAgentRunMessage);
    };

    const stepType = (): StepType => step?.type ?? 'action';

    const openStream = (blockId: string, messageType: StreamState['messageType'], variant?: 'processing'): StreamState => {
      const number = step?.number;
      const s: StreamState = {
        streamId: uniqueStreamId(`msg-${number ?? 0}-${messageType}-stream`),
        messageType,
        parts: [],
        text: '',
      };
      if (step) s.stepType = step.type;
      if (number !== undefined) s.stepNumber = number;
      if (step?.planningType) s.planningType = step.planningType;
      if (variant) s.variant = variant;
      streams.set(blockId, s);
      const md: Record<string, unknown> = streamMeta(s, true);
      md.streaming = true;
      md.stream_id = s.streamId;
      md.is_initial_stream = true;
      md.block_id = blockId;
      if (variant) md.reasoning_variant = variant;
      send('', md, s.stepNumber);
      return s;
    };

    /** The metadata every message of a stream has. */
    const streamMeta = (s: StreamState, active: boolean): Record<string, unknown> => {
      const md: Record<string, unknown> = { component: 'chat', message_type: s.messageType };
      if (s.messageType === 'planning_content') {
        md.step_type = 'planning';
        md.agent_status = s.planningType === 'update' ? 'update_planning' : 'initial_planning';
      } else if (s.messageType === 'action_thought') {
        md.step_type = 'action';
        md.agent_status = 'thinking';
      } else {
        if (s.stepType === 'planning' || s.stepType === 'action') md.step_type = s.stepType;
        md.agent_status = 'writing';
      }
      md.is_active = active;
      md.status = active ? 'streaming' : 'done';
      return md;
    };

    const delta = (s: StreamState, text: string): void => {
      s.parts.push(text);
      if (accumulated) s.text += text;
      const md = streamMeta(s, true);
      md.streaming = true;
      md.is_delta = true;
      md.stream_id = s.streamId;
      send(accumulated ? s.text : text, md, s.stepNumber);
    };

    const closeStream = (blockId: string, s: StreamState): void => {
      streams.delete(blockId);
      const content = s.parts.join('');
      const md = streamMeta(s, false);
      if (s.messageType === 'planning_content') {
        if (s.planningType) md.planning_type = s.planningType;
        if (s.stepNumber !== undefined) md.planning_step_number = s.stepNumber;
      }
      md.streaming = false;
      md.stream_id = s.streamId;
      if (s.messageType === 'action_thought') {
        md.is_raw_thought = true;
        md.thoughts_content = thoughtsPreview(content);
        md.full_thought_length = content.length;
      } else if (s.messageType === 'planning_content') md.content_length = content.length;
      md.block_id = blockId;
      if (s.variant) md.reasoning_variant = s.variant;
      send(content, md, s.stepNumber);
    };

    const sendAnswer = (s: StepState): void => {
      if (s.answered) return;
      s.answered = true;
      const { content, md } = finalAnswer(s.answer.join(''), s.answerPm, s.sources);
      send(content, md, counters.lastAction > 0 ? counters.lastAction : undefined);
    };

    const footer = (s: StepState, usage: Usage | undefined, durationMs: number | undefined, finish: string | undefined): void => {
      const f = stepFooter(s, usage, durationMs, finish);
      send(f.content, f.md, s.number);
      send('-----', f.separator, s.number);
    };

    const closeStreams = (): void => {
      for (const [id, s] of streams) closeStream(id, s);
    };

    switch (e.type) {
      case 'run-start':
        return;
      case 'step-start': {
        // DSAgentRunMessage has no nesting: a step inside an open one (a subagent's) flows into it.
        if (step && step.type !== 'final_answer') {
          nested.add(e.stepId);
          return;
        }
        if (step?.type === 'final_answer') sendAnswer(step);
        const base = { id: e.stepId, answer: [], sources: [], answered: false };
        if (e.kind === 'final-answer') {
          step = { ...base, type: 'final_answer' };
          return;
        }
        const h = stepHeader(e, counters);
        step =
          h.type === 'planning'
            ? { ...base, type: 'planning', number: h.number, planningType: h.planningType }
            : { ...base, type: 'action', number: h.number };
        return send(h.content, h.md, h.number);
      }
      case 'step-finish': {
        if (nested.delete(e.stepId)) return;
        const s = step;
        if (!s) return;
        step = undefined;
        if (s.type === 'final_answer') return sendAnswer(s);
        return footer(s, e.usage, e.durationMs, e.finishReason);
      }
      case 'reasoning-start':
        openStream(
          e.blockId,
          step?.type === 'planning' ? 'planning_content' : 'action_thought',
          e.variant === 'processing' ? 'processing' : undefined,
        );
        return;
      case 'text-start':
        if (step?.type === 'final_answer') {
          answerBlocks.add(e.blockId);
          step.answerPm ??= e.providerMetadata;
        } else openStream(e.blockId, 'assistant_message');
        return;
      case 'reasoning-delta':
      case 'text-delta': {
        if (answerBlocks.has(e.blockId) && step?.type === 'final_answer') {
          step.answer.push(e.delta);
          return;
        }
        const s =
          streams.get(e.blockId) ??
          openStream(
            e.blockId,
            e.type === 'text-delta' ? 'assistant_message' : step?.type === 'planning' ? 'planning_content' : 'action_thought',
          );
        return delta(s, e.delta);
      }
      case 'reasoning-end':
      case 'text-end': {
        if (answerBlocks.delete(e.blockId)) return;
        const s = streams.get(e.blockId);
        if (s) closeStream(e.blockId, s);
        return;
      }
      case 'tool-input-start':
        toolNames.set(e.toolCallId, e.toolName);
        return;
      case 'tool-input-end': {
        toolNames.set(e.toolCallId, e.toolName);
        if (toolCalls.has(e.toolCallId)) return;
        toolCalls.add(e.toolCallId);
        const number = step?.number;
        const { badge, content, md } = toolInvocation(e);
        send('', badge, number);
        return send(content, md, number);
      }
      case 'tool-output': {
        if (e.preliminary || toolResults.has(e.toolCallId)) return;
        toolResults.add(e.toolCallId);
        const name = e.toolName ?? toolNames.get(e.toolCallId);
        const text = typeof e.output === 'string' ? e.output : JSON.stringify(e.output, null, 2);
        const messageType = name === PYTHON ? 'execution_logs' : 'observation';
        const content = `\`\`\`bash\n${text}\n\`\`\``;
        const md: Record<string, unknown> = {
          component: routeComponent(name, messageType, content),
          message_type: messageType,
          tool_name: name ?? null,
          tool_id: e.toolCallId,
          step_type: 'action',
          agent_status: 'actions_running',
          is_active: false,
          title: name === PYTHON ? '📝 Execution Logs' : `📝 Observation${name ? ` from ${name}` : ''}`,
          status: 'done',
          output_lines: text.split('\n').length,
          has_error: /(error|exception|traceback|failed)/i.test(text),
        };
        if (typeof e.output !== 'string') md.output_format = 'json';
        return send(content, md, step?.number);
      }
      case 'tool-error': {
        if (toolResults.has(e.toolCallId)) return;
        toolResults.add(e.toolCallId);
        const name = e.toolName ?? toolNames.get(e.toolCallId);
        const smol = e.providerMetadata?.smolagents?.error;
        const errorType = isRecord(smol) && typeof smol.type === 'string' ? smol.type : 'ToolError';
        if (step) step.error = { message: e.error, type: errorType };
        const md: Record<string, unknown> = {
          component: routeComponent(name, 'error', e.error),
          message_type: 'error',
          step_type: stepType(),
          title: '💥 Error',
          status: 'done',
          error: true,
          error_type: errorType,
        };
        if (name !== undefined) md.tool_name = name;
        md.tool_id = e.toolCallId;
        if (e.output !== undefined) md.tool_output = e.output;
        md.fatal = false;
        return send(e.error, md, step?.number);
      }
      case 'error': {
        const smol = e.providerMetadata?.smolagents?.error;
        const errorType = isRecord(smol) && typeof smol.type === 'string' ? smol.type : (e.code ?? 'Error');
        const md: Record<string, unknown> = { component: routeComponent(undefined, 'error', e.message), message_type: 'error' };
        if (step) md.step_type = step.type;
        md.title = '💥 Error';
        md.status = 'done';
        md.error = true;
        md.error_type = errorType;
        if (e.code !== undefined) md.error_code = e.code;
        md.fatal = e.fatal;
        return send(e.message, md, step?.number);
      }
      case 'source': {
        if (step?.type !== 'final_answer') return;
        step.sources.push(e.url ?? e.title ?? e.sourceId);
        return;
      }
      case 'file': {
        if (!e.mediaType.startsWith('image/')) return;
        const { content, md } = observationImage(e);
        return send(content, md, step?.number);
      }
      case 'run-finish':
      case 'run-abort':
        closeStreams();
        if (step?.type === 'final_answer') sendAnswer(step);
        ended = true;
        return;
      default:
        for (const w of waitMessage(e, toolNames)) send(w.content, w.md, step?.number); // else none (dsagent.md, "lost")
        return;
    }
  }

  return writeMachine(encode, () => ended);
}
