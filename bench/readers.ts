/**
 * Section 3 of `npm run bench`: reading UI protocol streams back. The same SSE bytes (an AI SDK UI
 * message stream, an AG-UI event stream) are read by our readers and by the official clients, at
 * several sizes, to show how the cost per delta grows with the length of the stream.
 *
 * Ours: (a) `framed(createDecoder(protocol))` fed the body in 64 KiB chunks → canonical events,
 * kept in an array; (b) `decode(<the body as a ReadableStream>, protocol)` (the async-iterable API a
 * client uses on a fetch body) with every event folded into an assembled message (assemble.ts).
 * Official: `parseJsonEventStream` + `readUIMessageStream` (ai), `HttpAgent.runAgent` (@ag-ui/client).
 */
import { isDeepStrictEqual } from 'node:util';
import { HttpAgent, type Message } from '@ag-ui/client';
import { type CanonicalEvent, createDecoder, decode, framed } from '@switchboard/core';
import { isToolUIPart, parseJsonEventStream, readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { type AssembledMessage, createMessageAssembler } from './assemble.ts';
import {
  agUiTextFixture,
  agUiToolFixture,
  aiSdkTextFixture,
  aiSdkToolFixture,
  byteStream,
  READER_IDS,
  type ReaderFixture,
} from './fixtures.ts';
import {
  type Case,
  FAST_RUNS,
  fail,
  fixed,
  int,
  type Measured,
  measure,
  ratio,
  runsText,
  SLOW_RUNS,
  sameText,
  short,
  table,
} from './harness.ts';

export interface ReadersOptions {
  /** Text stream sizes, in deltas (ascending). */
  textSizes: number[];
  /** Tool-input stream sizes, in one-character deltas (ascending). */
  toolSizes: number[];
  runs: number;
  /** A contender whose warm-up run takes longer than this (ms) is measured by that one run. */
  singleAboveMs: number;
  /** A fast contender runs until its runs add up to about this (ms), up to FAST_RUNS times (0: exactly `runs`). */
  fastMs: number;
  /** A contender whose warm-up run takes longer than this (ms) gets SLOW_RUNS timed runs (0: off). */
  slowAboveMs: number;
}

type Protocol = ReaderFixture['protocol'];
type Kind = ReaderFixture['kind'];

const PROTOCOLS: { protocol: Protocol; title: string; official: string }[] = [
  { protocol: 'ai-sdk', title: 'AI SDK UI message stream', official: "(c) official: ai's parseJsonEventStream + readUIMessageStream" },
  { protocol: 'ag-ui', title: 'AG-UI', official: "(c) official: @ag-ui/client's HttpAgent.runAgent()" },
];

const ROLES = ['ours_events', 'ours_message', 'official'] as const;
type Role = (typeof ROLES)[number];

function fixtureOf(protocol: Protocol, kind: Kind, size: number): ReaderFixture {
  if (protocol === 'ai-sdk') return kind === 'text' ? aiSdkTextFixture(size) : aiSdkToolFixture(size);
  return kind === 'text' ? agUiTextFixture(size) : agUiToolFixture(size);
}

// Warnings the official clients print (AG-UI warns when it drops events) fail the check of the run.
const warnings: string[] = [];
function takeWarnings(): string[] {
  return warnings.splice(0);
}

// ---------------------------------------------------------------------------------------------
// Checks: every side must carry exactly the fixture's text / tool input
// ---------------------------------------------------------------------------------------------

function checkEvents(label: string, events: CanonicalEvent[], f: ReaderFixture): void {
  let text = '';
  let textDeltas = 0;
  let toolText = '';
  let toolDeltas = 0;
  let input: unknown;
  for (const e of events) {
    if (e.type === 'text-delta') {
      text += e.delta;
      textDeltas++;
    } else if (e.type === 'tool-input-delta') {
      toolText += e.delta;
      toolDeltas++;
    } else if (e.type === 'tool-input-end') input = e.input;
    else if (e.type === 'error') fail(`${label}: error event ${JSON.stringify(e)}`);
  }
  if (events.at(-1)?.type !== 'run-finish') fail(`${label}: the last event is ${events.at(-1)?.type}, not run-finish`);
  if (f.kind === 'text') {
    sameText(label, 'text', text, f.text);
    if (textDeltas !== f.deltas) fail(`${label}: ${textDeltas} text-delta events, expected ${f.deltas}`);
    return;
  }
  const tool = f.tool!;
  sameText(label, 'tool input text', toolText, tool.json);
  if (toolDeltas !== f.deltas) fail(`${label}: ${toolDeltas} tool-input-delta events, expected ${f.deltas}`);
  if (!isDeepStrictEqual(input, tool.input)) fail(`${label}: tool-input-end input differs from the streamed input`);
}

function checkAssembled(label: string, m: AssembledMessage, f: ReaderFixture): void {
  if (m.errors.length > 0) fail(`${label}: errors ${JSON.stringify(m.errors)}`);
  if (m.finishReason === undefined) fail(`${label}: no run-finish`);
  const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  sameText(label, 'message text', text, f.text);
  if (f.kind === 'tool') {
    const tool = f.tool!;
    const call = m.toolCalls[0];
    if (m.toolCalls.length !== 1 || call.toolCallId !== tool.toolCallId || call.toolName !== tool.toolName)
      fail(`${label}: tool calls ${JSON.stringify(m.toolCalls.map((c) => [c.toolCallId, c.toolName]))}`);
    if (!isDeepStrictEqual(call.input, tool.input)) fail(`${label}: tool call input differs from the streamed input`);
  }
}

function checkUIMessage(label: string, m: UIMessage | undefined, f: ReaderFixture): void {
  if (!m) fail(`${label}: readUIMessageStream yielded no message`);
  const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  sameText(label, 'message text', text, f.text);
  if (f.kind === 'tool') {
    const tool = f.tool!;
    const parts = m.parts.filter(isToolUIPart);
    const part = parts[0];
    if (parts.length !== 1 || part.toolCallId !== tool.toolCallId || part.state !== 'input-available')
      fail(`${label}: tool parts ${JSON.stringify(parts.map((p) => [p.toolCallId, p.state]))}`);
    if (!isDeepStrictEqual(part.input, tool.input)) fail(`${label}: tool part input differs from the streamed input`);
  }
  const w = takeWarnings();
  if (w.length > 0) fail(`${label}: the client warned: ${w.join(' | ')}`);
}

function checkAgUiMessages(label: string, messages: Message[], f: ReaderFixture): void {
  const w = takeWarnings();
  if (w.length > 0) fail(`${label}: the client warned: ${w.join(' | ')}`);
  if (messages.length !== 1 || messages[0].role !== 'assistant') fail(`${label}: messages ${JSON.stringify(messages.map((m) => m.role))}`);
  const m = messages[0];
  if (f.kind === 'text') {
    sameText(label, 'message content', typeof m.content === 'string' ? m.content : '', f.text);
    return;
  }
  const tool = f.tool!;
  const calls = m.toolCalls ?? [];
  if (calls.length !== 1 || calls[0].id !== tool.toolCallId || calls[0].function.name !== tool.toolName)
    fail(`${label}: tool calls ${JSON.stringify(calls.map((c) => [c.id, c.function.name]))}`);
  sameText(label, 'tool call arguments', calls[0].function.arguments, tool.json);
}

// ---------------------------------------------------------------------------------------------
// Contenders
// ---------------------------------------------------------------------------------------------

function oursEvents(f: ReaderFixture): Case<CanonicalEvent[]> {
  return {
    key: 'ours_events',
    name: `(a) ours: framed(createDecoder('${f.protocol}')) → canonical events`,
    async run() {
      const reader = framed(createDecoder(f.protocol));
      const events: CanonicalEvent[] = [];
      for (const chunk of f.chunks) for (const e of reader.push(chunk)) events.push(e);
      for (const e of reader.end()) events.push(e);
      return events;
    },
    check: (events, label) => checkEvents(label, events, f),
  };
}

function oursMessage(f: ReaderFixture): Case<AssembledMessage> {
  return {
    key: 'ours_message',
    name: `(b) ours: decode(body, '${f.protocol}') → assembled message`,
    async run() {
      const assembler = createMessageAssembler();
      for await (const e of decode(byteStream(f.chunks), f.protocol)) assembler.push(e);
      return assembler.message();
    },
    check: (m, label) => checkAssembled(label, m, f),
  };
}

/** What `DefaultChatTransport` does with a response body, then `readUIMessageStream` to the end. */
function officialAiSdk(f: ReaderFixture, name: string): Case<UIMessage | undefined> {
  return {
    key: 'official',
    name,
    async run() {
      const chunks = parseJsonEventStream({ stream: byteStream(f.chunks), schema: uiMessageChunkSchema }).pipeThrough(
        new TransformStream<{ success: true; value: UIMessageChunk } | { success: false; error: unknown }, UIMessageChunk>({
          transform(result, controller) {
            if (!result.success) throw result.error;
            controller.enqueue(result.value);
          },
        }),
      );
      let last: UIMessage | undefined;
      for await (const m of readUIMessageStream({ stream: chunks })) last = m;
      return last;
    },
    check: (m, label) => checkUIMessage(label, m, f),
  };
}

/** `HttpAgent` whose fetch returns the body (a stream of the same 64 KiB chunks), `runAgent()` to the end. */
function officialAgUi(f: ReaderFixture, name: string): Case<Message[]> {
  return {
    key: 'official',
    name,
    async run() {
      const agent = new HttpAgent({
        url: 'http://agent.invalid/run',
        threadId: READER_IDS.threadId,
        fetch: async () => new Response(byteStream(f.chunks), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
      });
      await agent.runAgent({ runId: READER_IDS.runId });
      return agent.messages;
    },
    check: (messages, label) => checkAgUiMessages(label, messages, f),
  };
}

// ---------------------------------------------------------------------------------------------
// Section
// ---------------------------------------------------------------------------------------------

interface Cell {
  protocol: Protocol;
  kind: Kind;
  size: number;
  inputBytes: number;
  results: (Measured & { nsPerDelta: number })[];
}

export interface ReadersResult {
  text: Cell[];
  tool: Cell[];
  /** Per protocol and kind: ns/delta at the largest size ÷ at the smallest, per contender. */
  growth: Record<string, Record<Role, number>>;
  /** Per protocol, kind and size: official ns ÷ ours (b) ns. */
  officialVsOursMessage: Record<string, Record<string, number>>;
}

async function measureKind(kind: Kind, sizes: number[], options: ReadersOptions): Promise<Cell[]> {
  const cells: Cell[] = [];
  for (const { protocol, official } of PROTOCOLS) {
    for (const size of sizes) {
      const f = fixtureOf(protocol, kind, size);
      const cases: Case[] = [
        oursEvents(f),
        oursMessage(f),
        protocol === 'ai-sdk' ? officialAiSdk(f, official) : officialAgUi(f, official),
      ] as Case[];
      process.stdout.write(`   ${protocol} ${kind} ${int(size)} deltas (${fixed(f.bytes.byteLength / 1e6, 2)} MB)…`);
      const t0 = performance.now();
      const results = await measure(cases, {
        runs: options.runs,
        singleAboveMs: options.singleAboveMs,
        minTotalMs: options.fastMs,
        maxRuns: FAST_RUNS,
        slowAboveMs: options.slowAboveMs || undefined,
        slowRuns: SLOW_RUNS,
      });
      process.stdout.write(` ${fixed((performance.now() - t0) / 1000, 1)} s\n`);
      cells.push({
        protocol,
        kind,
        size,
        inputBytes: f.bytes.byteLength,
        results: results.map((r) => ({ ...r, nsPerDelta: r.ns / size })),
      });
    }
  }
  return cells;
}

function report(kind: Kind, sizes: number[], cells: Cell[], result: ReadersResult, singleAboveMs: number): void {
  const first = short(sizes[0]);
  const last = short(sizes.at(-1) ?? sizes[0]);
  const head = [
    kind === 'text' ? 'text deltas: ns per delta' : 'one-character tool-input deltas: ns per delta',
    ...sizes.map((s) => `${short(s)}`),
    `growth ${last}/${first}`,
    `ms at ${last}`,
  ];
  const rows: string[][] = [];
  const blank = () => sizes.map(() => '');
  for (const { protocol, title } of PROTOCOLS) {
    rows.push([title, ...blank(), '', '']);
    const mine = cells.filter((c) => c.protocol === protocol);
    const growth: Record<string, number> = {};
    for (const role of ROLES) {
      const per = mine.map((c) => c.results.find((r) => r.key === role)!);
      const g = per.at(-1)!.nsPerDelta / per[0].nsPerDelta;
      growth[role] = g;
      const lastRun = per.at(-1)!;
      rows.push([
        `  ${per[0].name}`,
        ...per.map((r) => `${int(r.nsPerDelta)}${r.single ? '*' : ''}`),
        ratio(g),
        `${fixed(lastRun.ns / 1e6)}${lastRun.single ? '*' : ''}`,
      ]);
    }
    const vs: Record<string, number> = {};
    const ratios = mine.map((c) => {
      const ours = c.results.find((r) => r.key === 'ours_message')!;
      const theirs = c.results.find((r) => r.key === 'official')!;
      vs[String(c.size)] = theirs.ns / ours.ns;
      return ratio(theirs.ns / ours.ns);
    });
    rows.push(['  official ÷ ours (b)', ...ratios, '', '']);
    result.growth[`${protocol}/${kind}`] = growth as Record<Role, number>;
    result.officialVsOursMessage[`${protocol}/${kind}`] = vs;
  }
  console.log(`\n${table(head, rows)}`);
  const singles = cells.flatMap((c) => c.results.filter((r) => r.single).map((r) => ({ c, r })));
  for (const { c, r } of singles)
    console.log(
      `  * ${c.protocol} ${int(c.size)}: ${r.name.replace(/^\(\w\) /, '')} measured once (${fixed(r.ns / 1e9, 1)} s; ` +
        `a run over ${fixed(singleAboveMs / 1000, 0)} s is not repeated)`,
    );
}

export async function readers(options: ReadersOptions): Promise<ReadersResult> {
  console.log(
    `\n3) Readers: a UI protocol stream read back, ours vs the official clients, on the same SSE bytes (64 KiB chunks)\n` +
      `   text: ${options.textSizes.map(int).join(' / ')} model-like text deltas (1–6 characters); ` +
      `tool: one tool call whose JSON input streams as ${options.toolSizes.map(int).join(' / ')} one-character deltas\n` +
      `   1 warm-up + median of ${runsText(options.runs, options.fastMs, options.slowAboveMs)} each, interleaved, full GC before each, every run's output checked\n`,
  );
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
  };
  try {
    const text = await measureKind('text', options.textSizes, options);
    const tool = await measureKind('tool', options.toolSizes, options);
    const result: ReadersResult = { text, tool, growth: {}, officialVsOursMessage: {} };
    report('text', options.textSizes, text, result, options.singleAboveMs);
    report('tool', options.toolSizes, tool, result, options.singleAboveMs);
    console.log(
      `\n  checks: on every run, each side carries exactly the fixture's text (same characters, every delta) or tool input ` +
        `(same JSON text, same parsed input, complete call).`,
    );
    return result;
  } finally {
    console.warn = warn;
  }
}
