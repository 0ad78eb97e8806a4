/**
 * One fuzz case through everything: decode (the bytes framed once for every decoder, in one chunk
 * and split in two; the object API), `validate()`, every encoder, the official clients (`ai`'s
 * uiMessageChunkSchema + readUIMessageStream; `@ag-ui/core`'s schemas + `@ag-ui/client`'s pipeline
 * and verifier) and a SQLite store append; then whether a decoder changed the values it read.
 * Every way it can go wrong is counted under a kind.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Message } from '@ag-ui/core';
import type { UIMessage } from 'ai';
import { createFramer, type Frame } from '../../packages/core/src/codec/framing.ts';
import {
  type CanonicalEvent,
  createDecoder,
  createEncoder,
  type DecoderOptions,
  framed,
  type Machine,
  PROTOCOLS,
  type Protocol,
  type ProtocolSpec,
} from '../../packages/core/src/index.ts';
import { pushFrames } from '../../packages/core/src/inputs/decoder.ts';
import { validate, validateAiSdkChunks, validateDsAgentMessages, validateWsEvents } from '../../packages/core/src/schema.ts';
import type { SqliteStore } from '../../packages/store/src/index.ts';
import { runAgUi, schemaIssues } from '../support/ag-ui-oracle.ts';
import { assembleChunks, type ChunkVerdicts, parseAiSdkChunkTexts, parseAiSdkSse } from '../support/ai-sdk-oracle.ts';
import { asJsonLines, type FuzzCase } from './generate.ts';

/** What can go wrong, each counted separately. */
export type FindingKind =
  | 'decode-throw'
  | 'split-differs'
  | 'validate-throw'
  | 'invalid-event'
  | 'encode-throw'
  | 'ai-sdk-rejected'
  | 'ag-ui-rejected'
  | 'schema-rejected'
  | 'store-throw'
  | 'input-mutated';

export interface Finding {
  kind: FindingKind;
  framework: string;
  note: string;
}

function drain<I, O>(m: Machine<I, O>, inputs: I[]): O[] {
  const out: O[] = [];
  for (const i of inputs) for (const o of m.push(i)) out.push(o);
  for (const o of m.end()) out.push(o);
  return out;
}

const sse = (frames: readonly object[], terminator?: string) =>
  frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') + (terminator ? `data: ${terminator}\n\n` : '');

function msg(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.split('\n')[0]?.slice(0, 200) ?? '';
}

const OPTIONS = { runId: 'run', now: () => 0 } as const;

type FrameworkName = Parameters<typeof createDecoder>[0];

/**
 * What a client holds before a run that continues an earlier one (as in the matrix): the earlier
 * run's message id (the continuation's run-start carries it), its AI SDK message and its AG-UI
 * messages. Made once per earlier input.
 */
interface Continuation {
  messageId: string | undefined;
  aiSdk: UIMessage | undefined;
  agUi: Message[] | undefined;
}
const continuations = new WeakMap<Uint8Array, Promise<Continuation>>();

function continuationOf(c: FuzzCase): Promise<Continuation> | undefined {
  const earlierInput = c.continues;
  if (!earlierInput) return undefined;
  let made = continuations.get(earlierInput);
  if (!made) {
    made = (async () => {
      const earlier = drain(framed(createDecoder('auto', { runId: 'run0', now: () => 0 })), [earlierInput]);
      const frames = (p: Protocol) => drain(createEncoder(p) as Machine<CanonicalEvent, object>, earlier);
      const first = earlier[0];
      return {
        messageId: first?.type === 'run-start' ? first.messageId : undefined,
        aiSdk: (await assembleChunks(await parseAiSdkSse(sse(frames('ai-sdk'), '[DONE]')))).message,
        agUi: (await runAgUi(sse(frames('ag-ui')))).messages,
      };
    })();
    continuations.set(earlierInput, made);
  }
  return made;
}

/**
 * The bytes of a case: its body, or its objects as JSON lines. Made once per case, not once per
 * decoder (a structured case can hold values thousands of levels deep: stringifying them for every decoder
 * was a fifth of a long run).
 */
const bodies = new WeakMap<FuzzCase, Uint8Array | undefined>();
function bodyOf(c: FuzzCase): Uint8Array | undefined {
  if (c.kind === 'bytes') return c.body;
  if (!bodies.has(c)) bodies.set(c, asJsonLines(c.values));
  return bodies.get(c);
}

/**
 * What every decoder of a case shares: its bytes framed once (framing does not depend on the
 * decoder), and the findings of framing them whole and split in two at a byte that depends on the
 * seed (each decoder then gets the same frames, so the same frames mean the same events). `pristine`
 * is the split framing, which no decoder sees: after the case the frames must still equal it.
 */
interface Framed {
  frames: Frame[];
  pristine: Frame[];
  /** Whether the two framings were equal (else the frames cannot be checked for changes). */
  same: boolean;
  findings: [FindingKind, string][];
}
const framings = new WeakMap<FuzzCase, Framed | undefined>();

function frame(chunks: Uint8Array[]): Frame[] {
  const framer = createFramer();
  const out: Frame[] = [];
  for (const chunk of chunks) for (const f of framer.push(chunk)) out.push(f);
  for (const f of framer.end()) out.push(f);
  return out;
}

function framedCase(c: FuzzCase, split: number): Framed | undefined {
  if (framings.has(c)) return framings.get(c);
  const body = bodyOf(c);
  let made: Framed | undefined;
  if (body) {
    const findings: [FindingKind, string][] = [];
    let frames: Frame[] = [];
    let pristine: Frame[] = [];
    let same = false;
    try {
      frames = frame([body]);
    } catch (err) {
      findings.push(['decode-throw', `bytes framing: ${msg(err)}`]);
    }
    const at = Math.min(body.length, split % (body.length + 1));
    try {
      pristine = frame([body.subarray(0, at), body.subarray(at)]);
      same = isDeepStrictEqual(frames, pristine);
      if (!same) findings.push(['split-differs', `split at byte ${at}`]);
    } catch (err) {
      findings.push(['decode-throw', `bytes split: ${msg(err)}`]);
    }
    made = { frames, pristine, same, findings };
  }
  framings.set(c, made);
  return made;
}

/** A decoder's events for frames, or a finding when it throws. */
function decodeFrames(
  framework: string,
  frames: Frame[],
  options: typeof OPTIONS | DecoderOptions,
  add: (kind: FindingKind, note: string) => void,
) {
  try {
    const d = createDecoder(framework as FrameworkName, options);
    const out = pushFrames(d, frames);
    for (const e of d.end()) out.push(e);
    return out;
  } catch (err) {
    add('decode-throw', `bytes: ${msg(err)}`);
    return undefined;
  }
}

/** Decodes one case (object API, and its bytes); findings for throws and chunk-split differences. */
function decodeCase(framework: string, c: FuzzCase, split: number, findings: Finding[], messageId?: string): CanonicalEvent[] {
  const options = messageId ? { ...OPTIONS, messageId, continues: true } : OPTIONS;
  const add = (kind: FindingKind, note: string) => findings.push({ kind, framework, note });
  let events: CanonicalEvent[] = [];
  if (c.kind === 'objects') {
    try {
      const d = createDecoder(framework as FrameworkName, options);
      events = [];
      c.values.forEach((v, i) => {
        for (const e of d.push(v, { event: i + 1 })) events.push(e);
      });
      for (const e of d.end()) events.push(e);
    } catch (err) {
      add('decode-throw', `objects: ${msg(err)}`);
    }
  }
  const framed = framedCase(c, split);
  if (!framed) return events;
  for (const [kind, note] of framed.findings) add(kind, note);
  const whole = decodeFrames(framework, framed.frames, options, add);
  return c.kind === 'bytes' ? (whole ?? []) : events.length ? events : (whole ?? []);
}

/**
 * The findings for a decoder that changed the frames it was given (every decoder of a case reads
 * the same frames): each decoder in turn reads fresh frames, and those it changed are named.
 */
function mutationFindings(c: FuzzCase, split: number, frameworks: readonly string[], messageId?: string): Finding[] {
  const framed = framedCase(c, split);
  if (!framed?.same || isDeepStrictEqual(framed.frames, framed.pristine)) return [];
  const findings: Finding[] = [];
  const options = messageId ? { ...OPTIONS, messageId, continues: true } : OPTIONS;
  for (const framework of frameworks) {
    const frames = structuredClone(framed.pristine);
    decodeFrames(framework, frames, options, () => {});
    if (!isDeepStrictEqual(frames, framed.pristine))
      findings.push({ kind: 'input-mutated', framework, note: 'the decoder changed the values it read' });
  }
  if (findings.length === 0)
    findings.push({
      kind: 'input-mutated',
      framework: frameworks[0] ?? 'auto',
      note: 'the values read were changed after decoding (an encoder, a client or the store)',
    });
  return findings;
}

/** The decoded events with each hostile value spliced in before the last event as a `custom` event. */
function withHostileEvents(events: CanonicalEvent[], values: unknown[]): CanonicalEvent[] {
  const last = events.at(-1) as CanonicalEvent;
  const out = events.slice(0, -1);
  let seq = last.seq;
  for (const value of values) out.push({ type: 'custom', name: 'hostile', value, runId: last.runId, seq: seq++, ts: 0 } as CanonicalEvent);
  out.push({ ...last, seq });
  return out;
}

/** What the schemas and official clients say about one encoded stream: the findings, as [kind, note]. */
type Verdict = readonly (readonly [FindingKind, string])[];

/**
 * Verdicts by protocol and encoded body. Many inputs encode to the same stream (every unreadable
 * line ends as the same error), and the official clients are the slow part of a case: a stream they
 * judged once is not judged again. Bounded, so a long run's memory stays flat.
 */
const verdicts = new Map<string, Verdict>();
const VERDICTS_KEPT = 20_000;
const VERDICT_KEY_LIMIT = 64 * 1024;

function remember(key: string, verdict: Verdict): void {
  if (verdicts.size >= VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value as string);
  verdicts.set(key, verdict);
}

/** The official AI SDK parse of every chunk text seen (bounded like the verdicts). */
const chunkVerdicts: ChunkVerdicts = new Map();
const CHUNKS_KEPT = 50_000;

/** Runs one encoded stream through its protocol's own schema and the official client. */
async function judge(
  protocol: Protocol,
  frames: object[],
  texts: string[],
  body: string,
  before: Continuation | undefined,
): Promise<Verdict> {
  const out: [FindingKind, string][] = [];
  const own =
    protocol === 'ai-sdk'
      ? validateAiSdkChunks([...frames, '[DONE]'], { complete: true, continuation: before !== undefined })
      : protocol === 'ws'
        ? validateWsEvents(frames)
        : protocol === 'dsagent'
          ? validateDsAgentMessages(frames)
          : undefined;
  if (own && !own.ok)
    out.push(['schema-rejected', `${protocol} frame ${own.issues[0]?.index} ${own.issues[0]?.path}: ${own.issues[0]?.message}`]);
  if (protocol === 'ai-sdk') {
    try {
      if (chunkVerdicts.size > CHUNKS_KEPT) chunkVerdicts.clear();
      await assembleChunks(await parseAiSdkChunkTexts(texts, chunkVerdicts), before?.aiSdk);
    } catch (err) {
      out.push(['ai-sdk-rejected', msg(err)]);
    }
  } else if (protocol === 'ag-ui') {
    const issues = schemaIssues(frames);
    if (issues.length) out.push(['ag-ui-rejected', `@ag-ui/core schema: ${issues[0]}`]);
    else {
      const run = await runAgUi(body, before?.agUi ? { initialMessages: before.agUi } : {});
      if (run.error) out.push(['ag-ui-rejected', `@ag-ui/client: ${msg(run.error)}`]);
    }
  }
  return out;
}

/** Protocols whose streams a schema or an official client judges (the canonical stream has its own check: validate()). */
const JUDGED = new Set<Protocol>(['ai-sdk', 'ag-ui', 'ws', 'dsagent']);

/** What one framework made of a case: the findings, and the events the store gets. */
interface Checked {
  findings: Finding[];
  events: CanonicalEvent[];
}

/** Runs one case for one framework through everything but the store. */
async function checkDecoder(framework: string, c: FuzzCase, seed: number): Promise<Checked> {
  const findings: Finding[] = [];
  const add = (kind: FindingKind, note: string) => findings.push({ kind, framework, note });
  const before = await continuationOf(c);
  const events = decodeCase(framework, c, seed, findings, before?.messageId);
  if (events.length === 0) return { findings, events };
  // The guard turns a decoder that throws into a located `decoder_error` (the API never throws), but
  // the value it threw on is lost: that is a decoder throwing all the same.
  const threw = events.find((e) => e.type === 'error' && e.code === 'decoder_error');
  if (threw) add('decode-throw', `inside the guard: ${(threw as { message?: string }).message?.slice(0, 160)}`);

  try {
    const v = validate(events, { complete: true });
    if (!v.ok) {
      const i = v.issues[0];
      add('invalid-event', `event ${i?.index} (${(events[i?.index ?? 0] as { type?: string })?.type}) ${i?.path}: ${i?.message}`);
    }
  } catch (err) {
    add('validate-throw', msg(err));
  }

  // Events that did not come from a decoder (a store, a client) reach encoders too: for object cases,
  // the hostile values spliced into the case go in as custom events too, next to the decoded ones.
  const encoded = c.kind === 'objects' ? withHostileEvents(events, c.hostile) : events;
  for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
    let frames: object[];
    try {
      frames = drain(createEncoder(protocol) as Machine<CanonicalEvent, object>, encoded);
    } catch (err) {
      add('encode-throw', `${protocol}: ${msg(err)}`);
      continue;
    }
    // Each frame as the JSON text a client reads (a frame that cannot be written is a finding).
    let texts: string[];
    try {
      texts = frames.map((f) => `${JSON.stringify(f)}`);
    } catch (err) {
      add('encode-throw', `${protocol} framing: ${msg(err)}`);
      continue;
    }
    if (!JUDGED.has(protocol)) continue;
    const terminator = (PROTOCOLS[protocol] as ProtocolSpec).terminator;
    const body = texts.map((t) => `data: ${t}\n\n`).join('') + (terminator ? `data: ${terminator}\n\n` : '');
    const key = `${protocol}${before ? ` continuing ${before.messageId}` : ''}\n${body}`;
    const known = verdicts.get(key);
    const verdict = known ?? (await judge(protocol, frames, texts, body, before));
    if (known === undefined && key.length <= VERDICT_KEY_LIMIT) remember(key, verdict);
    for (const [kind, note] of verdict) add(kind, note);
  }

  return { findings, events };
}

/** Appends a framework's events to the store as a run of their own: a throw other than a StoreError is a finding. */
async function storeFindings(framework: string, events: CanonicalEvent[], seed: number, store: SqliteStore): Promise<Finding[]> {
  if (events.length === 0) return [];
  const runId = `fuzz-${framework}-${seed}`;
  try {
    await store.startRun({ chatId: runId, runId });
    await store.append(events.map((e) => ({ ...e, runId })));
  } catch (err) {
    if ((err as Error)?.name !== 'StoreError') return [{ kind: 'store-throw', framework, note: msg(err) }];
  }
  return [];
}

/** Runs one case for one framework and returns what went wrong. */
export async function checkCase(framework: string, c: FuzzCase, seed: number, store?: SqliteStore): Promise<Finding[]> {
  const { findings, events } = await checkDecoder(framework, c, seed);
  return store ? [...findings, ...(await storeFindings(framework, events, seed, store))] : findings;
}

/**
 * Runs one case through every framework in the list (they share the case's framing), then checks
 * that none of them changed the values it read.
 */
export async function checkInput(c: FuzzCase, seed: number, frameworks: readonly string[], store?: SqliteStore): Promise<Finding[]> {
  const checked: Checked[] = [];
  for (const fw of frameworks) checked.push(await checkDecoder(fw, c, seed));
  // The runs go to the store together, as a server's concurrent runs do: its group commit writes
  // them in one transaction (one each made the store a sixth of a run).
  const stored = store ? await Promise.all(checked.map((r, i) => storeFindings(frameworks[i] as string, r.events, seed, store))) : [];
  const findings: Finding[] = [];
  checked.forEach((r, i) => {
    findings.push(...r.findings, ...(stored[i] ?? []));
  });
  for (const f of mutationFindings(c, seed, frameworks, (await continuationOf(c))?.messageId)) findings.push(f);
  return findings;
}
