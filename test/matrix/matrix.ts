/**
 * The conformance matrix: every input through every encoder, each output checked by the official
 * implementation of its protocol where one exists (the `ai` package's chunk schema and
 * `readUIMessageStream`; `@ag-ui/core`'s schemas and `@ag-ui/client`'s full pipeline), and the
 * AG-UI and AI SDK outputs of the same input compared (same assistant text, reasoning and tool calls).
 */
import {
  type CanonicalEvent,
  createDecoder,
  createEncoder,
  createFramer,
  detectFramework,
  framed,
  type Machine,
  PROTOCOLS,
  type Protocol,
} from '../../packages/core/src/index.ts';
import { validate, validateDsAgentMessages, validateWsEvents } from '../../packages/core/src/schema.ts';
import { runAgUi, schemaIssues, summarizeAgUi } from '../support/ag-ui-oracle.ts';
import { assembleChunks, parseAiSdkSse, summarizeMessage } from '../support/ai-sdk-oracle.ts';
import type { MatrixInput } from './inputs.ts';

/** One cell: pass/fail, how many frames, and why it failed. */
export interface Cell {
  ok: boolean;
  frames: number;
  note?: string;
}

export interface Row {
  input: string;
  /** The framework `--from auto` recognised (undefined when none). */
  detected: string | undefined;
  /** The provider the run reports. */
  framework: string;
  cells: Record<string, Cell>;
}

function drain<I, O>(m: Machine<I, O>, inputs: I[]): O[] {
  const out: O[] = [];
  for (const i of inputs) out.push(...m.push(i));
  out.push(...m.end());
  return out;
}

const sse = (frames: readonly object[], terminator?: string) =>
  frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') + (terminator ? `data: ${terminator}\n\n` : '');

type Summary = { text: string; reasoning: string[]; tools: { toolCallId: string; toolName: string }[] };

function schemaCheck(validator: (frames: object[]) => { ok: boolean; issues: { index: number; path: string; message: string }[] }) {
  return async (frames: object[]) => {
    const r = validator(frames);
    if (!r.ok) throw new Error(`frame ${r.issues[0]?.index} ${r.issues[0]?.path}: ${r.issues[0]?.message}`);
    return undefined;
  };
}

/**
 * Protocol checks: the official implementation where one exists (ai, @ag-ui/client), else the zod
 * schemas written from the contracts (ws: the WebSocket `agent:event` contract, dsagent:
 * DeepSearchAgents' DSAgentRunMessage).
 */
/** What the client holds before a continuation run: the earlier run's outputs. */
type Before = Partial<Record<Protocol, object[]>>;

const withText = (reasoning: readonly string[]) => reasoning.filter((r) => r !== '');

const CHECKS: Partial<Record<Protocol, (frames: object[], before: Before) => Promise<Summary | undefined>>> = {
  'ai-sdk': async (frames, before) => {
    const previous = before['ai-sdk'] && (await assembleChunks(await parseAiSdkSse(sse(before['ai-sdk'], '[DONE]')))).message;
    const chunks = await parseAiSdkSse(sse(frames, '[DONE]'));
    const { message } = await assembleChunks(chunks, previous);
    const s = summarizeMessage(message);
    // AG-UI sends no message for a reasoning block without text (peer convention): compare the ones with text.
    return {
      text: s.text,
      reasoning: withText(s.reasoning),
      tools: s.tools.map((t) => ({ toolCallId: t.toolCallId, toolName: t.toolName })),
    };
  },
  'ag-ui': async (frames, before) => {
    const issues = schemaIssues(frames);
    if (issues.length) throw new Error(`@ag-ui/core schema: ${issues[0]}`);
    const initialMessages = before['ag-ui'] && (await runAgUi(sse(before['ag-ui']))).messages;
    const run = await runAgUi(sse(frames), initialMessages ? { initialMessages } : {});
    if (run.error) throw new Error(`@ag-ui/client: ${String(run.error)}`);
    if (run.warnings.length) throw new Error(`@ag-ui/client warned: ${run.warnings[0]}`);
    const s = summarizeAgUi(run.messages);
    return {
      text: s.text,
      reasoning: withText(s.reasoning),
      tools: s.tools.map((t) => ({ toolCallId: t.toolCallId, toolName: t.toolName })),
    };
  },
  ws: schemaCheck(validateWsEvents),
  dsagent: schemaCheck(validateDsAgentMessages),
};

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 160) ?? '';
}

/** The framework `auto` detection picks for an input, from its first recognisable value. */
export function detectInput(body: Uint8Array): string | undefined {
  const framer = createFramer();
  for (const frame of [...framer.push(body), ...framer.end()]) {
    if (frame.kind !== 'value') continue;
    const found = detectFramework(frame.value);
    if (found) return found;
  }
  return undefined;
}

/** Runs one input through every encoder. */
export async function runRow(input: MatrixInput): Promise<Row> {
  // A continuation run continues the earlier run's message (its run-start carries that message id and says it continues).
  const earlier = input.continues ? drain(framed(createDecoder('auto', { runId: 'run0', now: () => 0 })), [input.continues]) : [];
  const messageId = earlier[0]?.type === 'run-start' ? earlier[0].messageId : undefined;
  const events = drain(
    framed(createDecoder('auto', { runId: 'run', now: () => 0, ...(messageId ? { messageId, continues: true } : {}) })),
    [input.body],
  );
  const first = events[0];
  const framework = first?.type === 'run-start' ? (first.provider ?? '?') : '?';
  const cells: Record<string, Cell> = {};
  const v = validate(events);
  cells.canonical = v.ok
    ? { ok: true, frames: events.length }
    : { ok: false, frames: events.length, note: `event ${v.issues[0]?.index} ${v.issues[0]?.path}: ${v.issues[0]?.message}` };
  const summaries: Partial<Record<Protocol, Summary>> = {};
  for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
    if (protocol === 'canonical') continue;
    let frames: object[] = [];
    try {
      frames = drain(createEncoder(protocol) as Machine<CanonicalEvent, object>, events);
      const before: Before = earlier.length
        ? { [protocol]: drain(createEncoder(protocol) as Machine<CanonicalEvent, object>, earlier) }
        : {};
      const summary = await CHECKS[protocol]?.(frames, before);
      if (summary) summaries[protocol] = summary;
      cells[protocol] = { ok: true, frames: frames.length };
    } catch (err) {
      cells[protocol] = { ok: false, frames: frames.length, note: message(err) };
    }
  }
  const a = summaries['ai-sdk'];
  const b = summaries['ag-ui'];
  if (a && b) {
    const same =
      a.text === b.text &&
      JSON.stringify(a.reasoning) === JSON.stringify(b.reasoning) &&
      JSON.stringify(a.tools) === JSON.stringify(b.tools);
    cells['ag-ui≡ai-sdk'] = same
      ? { ok: true, frames: 0 }
      : { ok: false, frames: 0, note: 'assistant text, reasoning or tool calls differ between the AG-UI and AI SDK outputs' };
  }
  return { input: input.name, detected: detectInput(input.body), framework, cells };
}
