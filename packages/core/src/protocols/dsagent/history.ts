/**
 * Stored messages → DSAgentRunMessage history: what a DeepSearchAgents client holds after collecting
 * the dsagent encoder's output live. Pure: built from the folded messages alone, never by re-encoding
 * a run's events.
 *
 * The client's collected state (DeepSearchAgents' `use-websocket.tsx`): a stream is ONE message — the
 * initial message is added, its deltas replace its content, the final message replaces it and keeps
 * the initial message's `message_id` — so a stream appears here as its final message (streaming false,
 * the whole content) under the initial message's id; a stream still open appears as its initial
 * message with the text so far. Every other message is kept as sent. User messages are
 * `{role: 'user', content, metadata: {}, message_id, timestamp, session_id}` (DeepSearchAgents'
 * session echoes the query as a `DSAgentRunMessage` with the model's default metadata).
 */
import type { HistoryOptions } from '../../message/history-options.ts';
import type { AssistantMessage, ErrorInfo, MessagePart, PersistedMessage, StepInfo } from '../../message/types.ts';
import type { Json, ProviderMetadata } from '../../model/events.ts';
import {
  finalAnswer,
  isoTime,
  messageIdOf,
  observationImage,
  type StepCounters,
  stepFooter,
  stepHeader,
  thoughtsPreview,
  toolInvocation,
} from './encoder.ts';
import { PYTHON, routeComponent } from './routing.ts';
import type { DsAgentRunMessage } from './schema.ts';

/** A user message of DSAgent history (DeepSearchAgents' default metadata: `{}`). */
export interface DsAgentUserMessage {
  role: 'user';
  content: string;
  metadata: Record<string, never>;
  message_id: string;
  timestamp: string;
  session_id: string;
}

/** One message of DSAgent history. */
export type DsAgentHistoryMessage = DsAgentRunMessage | DsAgentUserMessage;

type StepType = 'planning' | 'action' | 'final_answer';

/** One stored assistant message → the messages a DSAgent client collected of its run. */
export function dsAgentOfAssistant(m: AssistantMessage, sendReasoning = true): DsAgentRunMessage[] {
  const out: DsAgentRunMessage[] = [];
  const session = m.chatId || m.runId;
  const steps = new Map<string, StepInfo>();
  for (const s of m.metadata.steps) steps.set(s.stepId, s);
  const counters: StepCounters = { planning: 0, lastAction: 0 };
  let step:
    | {
        type: StepType;
        number?: number;
        planningType?: 'initial' | 'update';
        info?: StepInfo;
        error?: { message: string; type: string };
        answer: string[];
        answerPm?: ProviderMetadata;
        sources: Json[];
        seq: number;
      }
    | undefined;
  const streamIds = new Set<string>();
  const uniqueStreamId = (base: string) => {
    let id = base;
    for (let n = 2; streamIds.has(id); n++) id = `${base}-${n}`;
    streamIds.add(id);
    return id;
  };
  const send = (seq: number, k: number, ts: number, content: string, metadata: Record<string, unknown>, stepNumber: number | undefined) => {
    const msg: Record<string, unknown> = {
      role: 'assistant',
      content,
      metadata,
      message_id: messageIdOf(m.runId, seq, k),
      timestamp: isoTime(ts),
      session_id: session,
    };
    if (stepNumber !== undefined) msg.step_number = stepNumber;
    out.push(msg as DsAgentRunMessage);
  };

  const closeStep = () => {
    const s = step;
    if (!s) return;
    step = undefined;
    const endTs = s.info?.endedAt ?? s.info?.startedAt ?? m.createdAt;
    // The encoder sends a step's closing messages at its step-finish event.
    const endSeq = s.info?.finishSeq ?? s.seq;
    if (s.type === 'final_answer') {
      const { content, md } = finalAnswer(s.answer.join(''), s.answerPm, s.sources);
      send(endSeq, s.info?.finishSeq === undefined ? 1 : 0, endTs, content, md, counters.lastAction > 0 ? counters.lastAction : undefined);
      return;
    }
    if (s.info?.endedAt === undefined) return;
    // The encoder sends only the duration step-finish reported, not the one the fold measured.
    const f = stepFooter(s, s.info.usage, s.info.measured ? undefined : s.info.durationMs, s.info.finishReason);
    send(endSeq, 0, endTs, f.content, f.md, s.number);
    send(endSeq, 1, endTs, '-----', f.separator, s.number);
  };

  const sendError = (e: ErrorInfo) => {
    const md: Record<string, unknown> = { component: routeComponent(undefined, 'error', e.message), message_type: 'error' };
    if (step) md.step_type = step.type;
    Object.assign(md, { title: '💥 Error', status: 'done', error: true, error_type: e.code ?? 'Error' });
    if (e.code !== undefined) md.error_code = e.code;
    md.fatal = e.fatal;
    send(e.seq, 0, e.ts, e.message, md, step?.number);
  };

  // Parts in event order, each tool result at its output event.
  type Item = { at: number; part: MessagePart; result: boolean };
  const items: Item[] = [];
  for (const p of m.metadata.parts) {
    items.push({ at: p.type === 'tool' ? (p.inputSeq ?? p.seq) : p.seq, part: p, result: false });
    if (p.type === 'tool' && p.outputSeq !== undefined && p.inputError === undefined)
      items.push({ at: p.outputSeq, part: p, result: true });
  }
  items.sort((a, b) => a.at - b.at);
  const errors = [...m.metadata.errors];

  for (const { part: p, result, at } of items) {
    while (errors.length > 0 && errors[0].seq < at) sendError(errors.shift() as ErrorInfo);
    switch (p.type) {
      case 'step-start': {
        if (p.stepId === undefined) break;
        // A subagent's step inside an open one flows into it (DSAgent steps do not nest).
        if (step && step.type !== 'final_answer' && p.subagentId !== undefined) break;
        closeStep();
        const info = steps.get(p.stepId);
        const base = { info, answer: [], sources: [], seq: p.seq };
        if (p.kind === 'final-answer') {
          step = { ...base, type: 'final_answer' };
          break;
        }
        const h = stepHeader({ ...p, stepId: p.stepId, kind: p.kind ?? 'other', providerMetadata: info?.providerMetadata }, counters);
        step =
          h.type === 'planning'
            ? { ...base, type: 'planning', number: h.number, planningType: h.planningType }
            : { ...base, type: 'action', number: h.number };
        send(p.seq, 0, p.startedAt, h.content, h.md, h.number);
        break;
      }
      case 'reasoning':
      case 'text': {
        if (p.type === 'text' && step?.type === 'final_answer') {
          step.answer.push(p.text);
          step.answerPm ??= p.providerMetadata;
          break;
        }
        if (p.type === 'reasoning' && !sendReasoning) break;
        const messageType = p.type === 'text' ? 'assistant_message' : step?.type === 'planning' ? 'planning_content' : 'action_thought';
        const streamId = uniqueStreamId(`msg-${step?.number ?? 0}-${messageType}-stream`);
        const active = p.state === 'streaming';
        const md: Record<string, unknown> = { component: 'chat', message_type: messageType };
        if (messageType === 'planning_content') {
          md.step_type = 'planning';
          md.agent_status = step?.planningType === 'update' ? 'update_planning' : 'initial_planning';
        } else if (messageType === 'action_thought') {
          md.step_type = 'action';
          md.agent_status = 'thinking';
        } else {
          if (step?.type === 'planning' || step?.type === 'action') md.step_type = step.type;
          md.agent_status = 'writing';
        }
        md.is_active = active;
        md.status = active ? 'streaming' : 'done';
        if (active) {
          Object.assign(md, { streaming: true, stream_id: streamId, is_initial_stream: true, block_id: p.blockId });
        } else {
          if (messageType === 'planning_content') {
            if (step?.planningType) md.planning_type = step.planningType;
            if (step?.number !== undefined) md.planning_step_number = step.number;
          }
          md.streaming = false;
          md.stream_id = streamId;
          if (messageType === 'action_thought')
            Object.assign(md, { is_raw_thought: true, thoughts_content: thoughtsPreview(p.text), full_thought_length: p.text.length });
          else if (messageType === 'planning_content') md.content_length = p.text.length;
          md.block_id = p.blockId;
        }
        if (p.type === 'reasoning' && p.variant === 'processing') md.reasoning_variant = 'processing';
        send(p.seq, 0, p.startedAt, p.text, md, step?.number);
        break;
      }
      case 'tool': {
        if (!result) {
          if (p.state === 'input-streaming') break;
          const { badge, content, md } = toolInvocation({ toolName: p.toolName, toolCallId: p.toolCallId, input: p.input ?? {} });
          // Sent when the input is whole: at tool-input-end.
          const inputSeq = p.inputSeq ?? p.seq;
          const inputAt = p.inputAt ?? p.startedAt;
          send(inputSeq, 0, inputAt, '', badge, step?.number);
          send(inputSeq, 1, inputAt, content, md, step?.number);
          break;
        }
        const ts = p.endedAt ?? p.startedAt;
        if (p.state === 'output-error') {
          const error = p.errorText ?? 'error';
          if (step) step.error = { message: error, type: 'ToolError' };
          const md: Record<string, unknown> = {
            component: routeComponent(p.toolName, 'error', error),
            message_type: 'error',
            step_type: step?.type ?? 'action',
            title: '💥 Error',
            status: 'done',
            error: true,
            error_type: 'ToolError',
            tool_name: p.toolName,
            tool_id: p.toolCallId,
          };
          if (p.errorOutput !== undefined) md.tool_output = p.errorOutput;
          md.fatal = false;
          send(p.outputSeq as number, 0, ts, error, md, step?.number);
          break;
        }
        if (p.state !== 'output-available') break;
        const output = p.output ?? null;
        const text = typeof output === 'string' ? output : JSON.stringify(output, null, 2);
        const messageType = p.toolName === PYTHON ? 'execution_logs' : 'observation';
        const content = `\`\`\`bash\n${text}\n\`\`\``;
        const md: Record<string, unknown> = {
          component: routeComponent(p.toolName, messageType, content),
          message_type: messageType,
          tool_name: p.toolName,
          tool_id: p.toolCallId,
          step_type: 'action',
          agent_status: 'actions_running',
          is_active: false,
          title: p.toolName === PYTHON ? '📝 Execution Logs' : `📝 Observation from ${p.toolName}`,
          status: 'done',
          output_lines: text.split('\n').length,
          has_error: /(error|exception|traceback|failed)/i.test(text),
        };
        if (typeof output !== 'string') md.output_format = 'json';
        send(p.outputSeq as number, 0, ts, content, md, step?.number);
        break;
      }
      case 'source':
        if (step?.type === 'final_answer') step.sources.push(p.url ?? p.title ?? p.sourceId);
        break;
      case 'file': {
        if (!p.mediaType.startsWith('image/')) break;
        const { content, md } = observationImage(p);
        send(p.seq, 0, p.at ?? step?.info?.startedAt ?? m.createdAt, content, md, step?.number);
        break;
      }
      default:
        break;
    }
  }
  for (const e of errors) sendError(e);
  closeStep();
  return out;
}

/**
 * Stored messages → DSAgentRunMessage history (`GET /api/chats/:id/messages?protocol=dsagent`): user
 * messages as DeepSearchAgents echoes them, each assistant message as {@link dsAgentOfAssistant}.
 * Work is proportional to the stored messages.
 */
export function toDsAgentMessages(messages: readonly PersistedMessage[], options: HistoryOptions = {}): DsAgentHistoryMessage[] {
  const out: DsAgentHistoryMessage[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') out.push(...dsAgentOfAssistant(m, options.sendReasoning ?? true));
    else if (m.role === 'user')
      out.push({ role: 'user', content: m.content, metadata: {}, message_id: m.id, timestamp: isoTime(m.createdAt), session_id: m.chatId });
  }
  return out;
}
