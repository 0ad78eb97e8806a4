/**
 * Reader (decoder) for DeepSearchAgents' DSAgentRunMessage: the messages `encoder.ts` writes (or a
 * DeepSearchAgents v2 server sends over its WebSocket) back into canonical events, linear in the
 * stream's length: stream parts are kept and joined once, when the final message is checked against
 * them; with `deltas: 'accumulated'` each delta's new text is the part beyond the previous length.
 *
 * - planning_header / action_header → step-start (planning / action, or the kind the header
 *   carries); planning_footer / action_footer → step-finish with tokens, duration, finish reason;
 * - planning_content / action_thought streams → reasoning blocks; assistant_message → a text block;
 * - tool_call → tool-input-start + tool-input-end (the input from `tool_args`, else from the
 *   tool_invocation that follows: python code, JSON, text); observation / execution_logs →
 *   tool-output (the fence removed); an error with a tool → tool-error, without → error;
 * - final_answer → a final-answer step with the answer text and its sources; observation_image → file;
 * - separator carries nothing; other message types (user messages included) become `raw`.
 * DeepSearchAgents' own server streams deltas before the step they belong to (no initial message) and
 * sends the final planning / thought text without a stream_id: both are read (see the docs).
 */
import { describe } from '../../codec/framing.ts';
import { at, type Decoder, isObject } from '../../inputs/decoder.ts';
import { emitAnswerSources, Kit } from '../../inputs/kit/index.ts';
import { type DecoderOptions, Emitter, frameClock } from '../../model/emitter.ts';
import type { EventInit, FinishReason, Json, Location, Usage } from '../../model/events.ts';
import { addUsage } from '../../model/usage.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS } from '../../model/vocabulary.ts';
import { PYTHON } from './routing.ts';

const SOURCE = 'dsagent';
const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);

/** Message types this reader knows (web_ui.py's and the encoder's). */
const MESSAGE_TYPES = new Set([
  'planning_header',
  'planning_content',
  'planning_footer',
  'separator',
  'action_header',
  'action_thought',
  'assistant_message',
  'tool_call',
  'tool_invocation',
  'observation',
  'execution_logs',
  'observation_image',
  'error',
  'action_footer',
  'final_answer',
]);

export interface DsAgentDecoderOptions extends DecoderOptions {
  /** How delta messages carry their text: `increment` (default) or `accumulated` (the whole text so far). */
  deltas?: 'increment' | 'accumulated';
}

type Meta = Record<string, unknown>;

/** Our person-in-the-loop message types (extensions). */
const WAIT_TYPES = new Set(['tool_approval_request', 'tool_approval_response', 'interrupt', 'interrupt_response']);

function str(o: Meta, key: string): string | undefined {
  return typeof o[key] === 'string' ? (o[key] as string) : undefined;
}

interface Step {
  id: string;
  kind: 'planning' | 'action' | 'model' | 'other' | 'final-answer';
  header: boolean;
  blocks: number;
  /** Tool calls announced by a tool_call badge without their input (DeepSearchAgents' own frames). */
  pending: string[];
}

interface Stream {
  blockId: string;
  kind: 'text' | 'reasoning';
  messageType: string;
  parts: string[];
  /** Length of the text so far (for accumulated deltas). */
  length: number;
  last: string;
}

interface Call {
  name: string;
  ended: boolean;
}

/** Removes web_ui.py's ```bash fence around tool output. */
function unfence(content: string): string {
  if (content.startsWith('```bash\n') && content.endsWith('\n```')) return content.slice(8, -4);
  const m = /^```[a-z]*\n([\s\S]*?)\n?```$/.exec(content);
  return m ? (m[1] as string) : content;
}

/** The answer text of a plain final_answer (web_ui.py prefixes `**Final answer:**`). */
function answerText(content: string): string {
  if (content.startsWith('**Final answer:**\n') && content.endsWith('\n')) return content.slice(18, -1);
  if (content.startsWith('**Final answer:**')) return content.slice(17).trimStart();
  return content;
}

/** The person-in-the-loop messages (our extensions) back to their canonical events. */
function waitMessage(
  out: Emitter,
  invalid: (where: Location | undefined, field: string, expected: string, code?: string) => void,
  type: string,
  content: string,
  md: Meta,
  where?: Location,
): void {
  /** The metadata fields that are set, under their canonical names (`{ tool_id: 'toolCallId' }`). */
  const fields = (names: Record<string, string>): Record<string, unknown> => {
    const o: Record<string, unknown> = {};
    for (const from in names) if (md[from] !== undefined) o[names[from]] = md[from];
    return o;
  };
  const id = str(md, type.startsWith('interrupt') ? 'interrupt_id' : 'approval_id');
  if (id === undefined)
    return invalid(where, `metadata.${type.startsWith('interrupt') ? 'interrupt_id' : 'approval_id'}`, 'a string', 'missing_field');
  const text = content !== '' ? content : undefined;
  if (type === 'tool_approval_request') {
    const toolCallId = str(md, 'tool_id');
    if (toolCallId === undefined) return invalid(where, 'metadata.tool_id', 'a string', 'missing_field');
    return out.emit({
      type: 'tool-approval-request',
      approvalId: id,
      toolCallId,
      ...fields({ tool_name: 'toolName', reason: 'reason' }),
    } as EventInit);
  }
  if (type === 'tool_approval_response')
    return out.emit({
      type: 'tool-approval-response',
      approvalId: id,
      approved: md.approved === true,
      ...fields({ tool_id: 'toolCallId', reason: 'reason', by: 'by' }),
    } as EventInit);
  if (type === 'interrupt')
    return out.emit({
      type: 'interrupt',
      interruptId: id,
      reason: str(md, 'reason') ?? 'input_required',
      ...(text !== undefined ? { message: text } : {}),
      ...fields({ tool_id: 'toolCallId', value: 'value', response_schema: 'responseSchema', expires_at: 'expiresAt' }),
    } as EventInit);
  return out.emit({
    type: 'interrupt-response',
    interruptId: id,
    status: md.interrupt_status === 'cancelled' ? 'cancelled' : 'resolved',
    ...fields({ payload: 'payload', by: 'by' }),
  } as EventInit);
}

/** Creates the reader of DSAgentRunMessage streams (framework `dsagent`). */
export function createDsAgentDecoder(options: DsAgentDecoderOptions = {}): Decoder {
  const accumulated = options.deltas === 'accumulated';
  const clock = frameClock(options.now);
  const out = new Emitter({ ...options, now: clock.now }, SOURCE);
  const stepIds = new Set<string>();
  const blockIds = new Set<string>();
  const streams = new Map<string, Stream>();
  const calls = new Map<string, Call>();
  const results = new Set<string>();
  /** Tool name → its latest call (DeepSearchAgents' outputs name the tool, not the call). */
  const lastCall = new Map<string, string>();
  let step: Step | undefined;
  let planningCount = 0;
  let generated = 0;
  let total: Usage | undefined;
  let lastFinish: FinishReason | undefined;
  let answered = false;
  let failed = false;

  const kit = new Kit(out, SOURCE);
  const { error, invalid } = kit;

  function unique(set: Set<string>, base: string): string {
    let id = base;
    for (let n = 2; set.has(id); n++) id = `${base}-${n}`;
    set.add(id);
    return id;
  }

  function openStep(kind: Step['kind'], md: Meta, number: number | undefined): Step {
    closeStep();
    // The writer's step id as it is; ours numbered like the smolagents decoder's, made unique.
    const given = str(md, 'step_id');
    if (kind === 'planning') planningCount++;
    const id =
      given ??
      unique(
        stepIds,
        kind === 'planning' ? `planning-${planningCount}` : kind === 'final-answer' ? 'final-answer' : `step-${number ?? ++generated}`,
      );
    stepIds.add(id);
    const e: EventInit = { type: 'step-start', stepId: id, kind };
    const planningType = str(md, 'planning_type');
    if (kind === 'planning' && planningType !== undefined) e.name = planningType;
    if (kind === 'action' && number !== undefined) e.number = number;
    out.emit(e);
    step = { id, kind, header: true, blocks: 0, pending: [] };
    return step;
  }

  /** Ends the announced calls that never got their input (DeepSearchAgents sends it for the first call only). */
  function endPending(s: Step): void {
    for (const id of s.pending) {
      const c = calls.get(id);
      if (!c || c.ended) continue;
      c.ended = true;
      out.emit({
        type: 'tool-input-end',
        toolCallId: id,
        toolName: c.name,
        input: {},
        inputError: "the stream never sent this tool call's input",
      });
    }
    s.pending = [];
  }

  function closeStep(init: Omit<EventInit & { type: 'step-finish' }, 'type' | 'stepId'> = {}): void {
    const s = step;
    if (!s) return;
    endPending(s);
    step = undefined;
    out.emit({ type: 'step-finish', stepId: s.id, ...init });
  }

  function newBlockId(md: Meta): string {
    const given = str(md, 'block_id');
    if (given !== undefined) return unique(blockIds, given);
    return unique(blockIds, `${step?.id ?? SOURCE}:${step ? step.blocks++ : generated++}`);
  }

  function openStream(key: string, md: Meta, kind: 'text' | 'reasoning'): Stream {
    const s: Stream = { blockId: newBlockId(md), kind, messageType: md.message_type as string, parts: [], length: 0, last: '' };
    streams.set(key, s);
    out.emit(
      kind === 'text'
        ? { type: 'text-start', blockId: s.blockId }
        : { type: 'reasoning-start', blockId: s.blockId, variant: md.reasoning_variant === 'processing' ? 'processing' : 'thinking' },
    );
    return s;
  }

  function append(s: Stream, text: string): void {
    if (!text) return;
    s.parts.push(text);
    out.emit({ type: s.kind === 'text' ? 'text-delta' : 'reasoning-delta', blockId: s.blockId, delta: text });
  }

  function endStream(key: string, s: Stream, content: string | undefined, where?: Location): void {
    streams.delete(key);
    if (content !== undefined) {
      const joined = s.parts.join('');
      if (content.startsWith(joined)) append(s, content.slice(joined.length));
      else
        error(
          'content_mismatch',
          `${describe(at(where, 'content'))}: expected the whole text of stream "${key}" (its deltas joined); the deltas are kept`,
          at(where, 'content', 'the deltas joined'),
        );
    }
    out.emit({ type: s.kind === 'text' ? 'text-end' : 'reasoning-end', blockId: s.blockId });
  }

  /** planning_content / action_thought / assistant_message: initial, delta or final. */
  function streamMessage(content: string, md: Meta, kind: 'text' | 'reasoning', where?: Location): void {
    const id = str(md, 'stream_id');
    if (md.is_initial_stream === true && id !== undefined) {
      if (!streams.has(id)) openStream(id, md, kind);
      return;
    }
    if (md.is_delta === true) {
      const key = id ?? `type:${md.message_type}`;
      const s = streams.get(key) ?? openStream(key, md, kind);
      if (!accumulated) return append(s, content);
      if (content.length < s.length || !content.startsWith(s.last)) {
        invalid(where, 'content', 'the whole text so far (deltas: accumulated)', 'content_mismatch');
        return;
      }
      append(s, content.slice(s.length));
      s.length = content.length;
      s.last = content;
      return;
    }
    // The final message: by stream id, else (DeepSearchAgents' own) the last open stream of its type.
    let key = id ?? `type:${md.message_type}`;
    if (id === undefined) for (const [k, s] of streams) if (s.messageType === md.message_type) key = k;
    const s = streams.get(key);
    if (s) return endStream(key, s, content, where);
    const whole = openStream(key, md, kind);
    endStream(key, whole, content, where);
  }

  function emitCall(id: string, name: string, input: Json): void {
    const c = calls.get(id);
    if (c?.ended) return;
    calls.set(id, { name, ended: true });
    lastCall.set(name, id);
    out.emit({ type: 'tool-input-start', toolCallId: id, toolName: name });
    out.emit({ type: 'tool-input-end', toolCallId: id, toolName: name, input });
  }

  function toolCall(md: Meta, where?: Location): void {
    const name = str(md, 'tool_name') ?? 'unknown';
    if (str(md, 'tool_name') === undefined) invalid(where, 'metadata.tool_name', 'a tool name string', 'missing_field');
    const id = str(md, 'tool_id') ?? `${step?.id ?? SOURCE}:call${++generated}`;
    if (calls.has(id)) return;
    if ('tool_args' in md) return emitCall(id, name, md.tool_args as Json);
    calls.set(id, { name, ended: false });
    lastCall.set(name, id);
    step?.pending.push(id);
  }

  function toolInvocation(content: string, md: Meta): void {
    const name = str(md, 'tool_name') ?? 'unknown';
    let id = str(md, 'tool_id');
    if (id !== undefined && calls.get(id)?.ended) return;
    id ??= step?.pending.find((p) => calls.get(p)?.name === name && !calls.get(p)?.ended);
    if (id !== undefined && calls.get(id)?.ended) return;
    let input: Json;
    if (name === PYTHON) input = { code: str(md, 'code') ?? unfence(content) };
    else if (name === 'final_answer') input = { answer: content };
    else {
      try {
        input = JSON.parse(content);
      } catch {
        input = content;
      }
    }
    emitCall(id ?? `${step?.id ?? SOURCE}:call${++generated}`, name, input);
  }

  /** The call an output or error belongs to: its tool_id, else the last unanswered call of that tool. */
  function callOf(md: Meta): string | undefined {
    const id = str(md, 'tool_id');
    if (id !== undefined) return id;
    const name = str(md, 'tool_name');
    const last = name === undefined ? undefined : lastCall.get(name);
    return last !== undefined && !results.has(last) ? last : undefined;
  }

  function toolOutput(content: string, md: Meta, where?: Location): void {
    const id = callOf(md) ?? `${step?.id ?? SOURCE}:call${++generated}`;
    if (results.has(id)) return;
    results.add(id);
    const c = calls.get(id);
    if (c && !c.ended) emitCall(id, c.name, {});
    const text = unfence(content);
    let output: Json = text;
    if (md.output_format === 'json') {
      try {
        output = JSON.parse(text);
      } catch {
        invalid(where, 'content', 'JSON inside the fence (output_format: json)');
      }
    }
    const e: EventInit = { type: 'tool-output', toolCallId: id, output };
    const name = str(md, 'tool_name') ?? c?.name;
    if (name !== undefined) e.toolName = name;
    out.emit(e);
  }

  function errorMessage(content: string, md: Meta): void {
    const id = str(md, 'tool_id') ?? (str(md, 'tool_name') !== undefined ? callOf(md) : undefined);
    if (id !== undefined) {
      if (results.has(id)) return;
      results.add(id);
      const c = calls.get(id);
      if (c && !c.ended) emitCall(id, c.name, {});
      const e: EventInit = { type: 'tool-error', toolCallId: id, error: content };
      const name = str(md, 'tool_name') ?? c?.name;
      if (name !== undefined) e.toolName = name;
      if ('tool_output' in md) e.output = md.tool_output as Json;
      return out.emit(e);
    }
    // Ours always say whether the error is fatal; DeepSearchAgents' stream-level exception has no step_type.
    const fatal = 'fatal' in md ? md.fatal === true : md.step_type === undefined;
    const e: EventInit = { type: 'error', message: content, fatal };
    const code = 'fatal' in md ? str(md, 'error_code') : str(md, 'error_type');
    if (code !== undefined) e.code = code;
    if (fatal) failed = true;
    out.emit(e);
  }

  function footer(md: Meta, where?: Location): void {
    if (!step) {
      invalid(where, 'metadata.message_type', 'a step footer after its header (no step is open)', 'unknown_step');
      return;
    }
    for (const [key, s] of streams) endStream(key, s, undefined);
    const init: Omit<EventInit & { type: 'step-finish' }, 'type' | 'stepId'> = {};
    const finish = str(md, 'finish_reason');
    if (finish !== undefined && FINISH_REASONS.has(finish)) {
      init.finishReason = finish as FinishReason;
      lastFinish = init.finishReason;
    }
    const t = md.token_usage;
    if (isObject(t)) {
      const u: Usage = {};
      if (typeof t.input_tokens === 'number') u.inputTokens = t.input_tokens;
      if (typeof t.output_tokens === 'number') u.outputTokens = t.output_tokens;
      if (typeof t.total_tokens === 'number') u.totalTokens = t.total_tokens;
      init.usage = u;
      total = addUsage(total, u);
    }
    if (isObject(md.timing) && typeof md.timing.duration === 'number') init.durationMs = Math.round(md.timing.duration * 1000);
    closeStep(init);
  }

  function finalAnswer(content: string, md: Meta): void {
    if (step?.kind !== 'final-answer') openStep('final-answer', {}, undefined);
    const s = step as Step;
    const text = md.has_structured_data === true ? (str(md, 'answer_content') ?? '') : answerText(content);
    const blockId = unique(blockIds, `${s.id}:${s.blocks++}`);
    out.emit({ type: 'text-start', blockId });
    if (text) out.emit({ type: 'text-delta', blockId, delta: text });
    out.emit({ type: 'text-end', blockId });
    if (Array.isArray(md.answer_sources)) emitAnswerSources(kit, s.id, md.answer_sources);
    answered = true;
    closeStep({ finishReason: 'stop' });
  }

  function handle(v: Record<string, unknown>, content: string, md: Meta, type: string, where?: Location): void {
    const number = Number.isInteger(v.step_number) ? (v.step_number as number) : undefined;
    switch (type) {
      case 'planning_header':
        if (step?.kind === 'planning' && !step.header) step.header = true;
        else openStep('planning', md, number);
        return;
      case 'action_header': {
        const kind = md.step_kind === 'model' || md.step_kind === 'other' ? md.step_kind : 'action';
        const m = /^\*\*Step (\d+)\*\*$/.exec(content);
        openStep(kind, md, number ?? (m ? Number(m[1]) : undefined));
        return;
      }
      case 'planning_content':
      case 'action_thought':
        return streamMessage(content, md, 'reasoning', where);
      case 'assistant_message':
        return streamMessage(content, md, 'text', where);
      case 'tool_call':
        return toolCall(md, where);
      case 'tool_invocation':
        return toolInvocation(content, md);
      case 'observation':
      case 'execution_logs':
        return toolOutput(content, md, where);
      case 'observation_image': {
        const url = str(md, 'image_path');
        if (url === undefined) return invalid(where, 'metadata.image_path', 'the image path or URL', 'missing_field');
        const e: EventInit = { type: 'file', url, mediaType: str(md, 'mime_type') ?? 'image/png' };
        const filename = str(md, 'filename');
        if (filename !== undefined) e.filename = filename;
        return out.emit(e);
      }
      case 'error':
        return errorMessage(content, md);
      case 'planning_footer':
      case 'action_footer':
        return footer(md, where);
      case 'separator':
        return;
      case 'final_answer':
        return finalAnswer(content, md);
      default: {
        if (WAIT_TYPES.has(type)) return waitMessage(out, invalid, type, content, md, where);
        const e: EventInit = {
          type: 'raw',
          source: SOURCE,
          event: v as Json,
          reason:
            v.role === 'user' ? 'a user message: the canonical model has no event for it' : `unknown message_type ${JSON.stringify(type)}`,
        };
        if (where) e.where = where;
        out.emit(e);
      }
    }
  }

  return kit.decoder({
    push(value, where) {
      if (!isObject(value)) {
        error(
          'invalid_event',
          `${describe(where ?? {})}: expected a DSAgentRunMessage object {role, content, metadata}, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
          { ...where, expected: 'object' },
        );
        return;
      }
      if (!isObject(value.metadata)) {
        invalid(where, 'metadata', 'an object');
        return;
      }
      if (typeof value.metadata.message_type !== 'string') {
        if (value.role === 'user') handle(value, '', value.metadata, 'user', where);
        else invalid(where, 'metadata.message_type', 'the message type as a string');
        return;
      }
      const content = value.content ?? '';
      if (typeof content !== 'string') {
        invalid(where, 'content', 'a string');
        return;
      }
      const metadata = value.metadata;
      const type = value.metadata.message_type;
      clock.at(value.timestamp, () => handle(value, content, metadata, type, where));
    },
    finish() {
      if (streams.size > 0 && !failed) {
        error('truncated', `the stream ended with ${streams.size} unfinished stream message(s) (no final message)`, undefined, true);
        failed = true;
      }
      for (const [key, s] of streams) endStream(key, s, undefined);
      closeStep(failed ? { finishReason: 'error' } : {});
      const e: EventInit = { type: 'run-finish', finishReason: failed ? 'error' : answered ? 'stop' : (lastFinish ?? 'stop') };
      if (total) e.usage = total;
      out.emit(e);
    },
  });
}

/** True when one parsed value is unmistakably a DSAgentRunMessage (role, content and routing metadata). */
export function detectDsAgent(value: unknown): boolean {
  return (
    isObject(value) &&
    !('type' in value) &&
    (value.role === 'assistant' || value.role === 'user') &&
    typeof value.content === 'string' &&
    isObject(value.metadata) &&
    typeof value.metadata.message_type === 'string' &&
    MESSAGE_TYPES.has(value.metadata.message_type)
  );
}
