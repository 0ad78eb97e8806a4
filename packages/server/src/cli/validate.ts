/**
 * `switchboard validate`: checks a canonical event stream, an AI SDK UI message stream, an AG-UI
 * event stream (with the optional peer dependencies `@ag-ui/core` and `@ag-ui/client`), a ws or a
 * dsagent stream and prints `ok (N events)` or one located line per issue. A file is a whole stream:
 * one cut short (no `finish` / `[DONE]`, no `run-finish`, parts left open) is invalid.
 */

import { cleanValue, inspectValue, type Removed } from '@switchboard/core';
import {
  AI_SDK_DONE,
  type ValidationResult,
  validate,
  validateAiSdkChunks,
  validateDsAgentMessages,
  validateWsEvents,
} from '@switchboard/core/schema';
import { describeWhere, type Entry, readEntries, type Where } from './frames.ts';
import { CliIoError, openInput } from './io.ts';

interface LocatedIssue {
  index: number;
  where: Where;
  path: string;
  message: string;
}

/** Checks the entries of one input; issues are located by entry index and input position. */
export type CheckedProtocol = 'ai-sdk' | 'canonical' | 'ws' | 'dsagent' | 'ag-ui';

type Validator = (values: unknown[]) => ValidationResult | Promise<ValidationResult>;

const VALIDATORS: Record<CheckedProtocol, Validator> = {
  'ai-sdk': validateAiSdk,
  canonical: (values) => validate(values, { complete: true }),
  ws: validateWsEvents,
  dsagent: validateDsAgentMessages,
  'ag-ui': validateAgUi,
};

/**
 * AI SDK chunks: our validator (the chunk schemas and the client's assembly rules, whole stream),
 * plus, where the `ai` package is installed (an optional peer dependency), each chunk against its own
 * exported `uiMessageChunkSchema` — the check the official client runs — so a chunk our schema lets
 * through but the client would reject is still reported.
 */
async function validateAiSdk(values: unknown[]): Promise<ValidationResult> {
  const result = validateAiSdkChunks(values, { complete: true });
  let ai: typeof import('ai');
  try {
    ai = await import('ai');
  } catch {
    return result;
  }
  const schema = ai.uiMessageChunkSchema();
  const flagged = new Set(result.issues.map((i) => i.index));
  for (const [index, value] of values.entries()) {
    if (value === AI_SDK_DONE || flagged.has(index)) continue;
    // The client's secure JSON parse rejects these keys before any schema sees the chunk.
    const removed: Removed[] = [];
    if (inspectValue(value).unsafe) cleanValue(value, removed);
    const key = removed.find((r) => r.action === 'removed');
    if (key) {
      result.issues.push({ index, path: key.path, message: "a key the AI SDK client's secure JSON parse rejects" });
      continue;
    }
    const r = await schema.validate?.(value);
    if (r && !r.success)
      result.issues.push({
        index,
        path: '',
        message: `rejected by the ai package's uiMessageChunkSchema: ${r.error.message.split('\n')[0]}`,
      });
  }
  result.issues.sort((a, b) => a.index - b.index);
  return { ok: result.issues.length === 0, issues: result.issues };
}

/** Thrown when `--protocol ag-ui` is asked for without its optional peer dependencies. */
class MissingPeer extends Error {}

/**
 * AG-UI events checked by the official packages: each against `@ag-ui/core`'s `EventSchemas`, then
 * the whole sequence through `@ag-ui/client`'s `verifyEvents` (the lifecycle rules every AG-UI
 * client enforces: RUN_STARTED first, message / tool call / step starts and ends paired, nothing
 * after RUN_FINISHED …). A stream without RUN_FINISHED or RUN_ERROR is truncated.
 */
async function validateAgUi(values: unknown[]): Promise<ValidationResult> {
  let schemas: typeof import('@ag-ui/core/schemas');
  let client: typeof import('@ag-ui/client');
  let rxjs: typeof import('rxjs');
  try {
    [schemas, client, rxjs] = await Promise.all([import('@ag-ui/core/schemas'), import('@ag-ui/client'), import('rxjs')]);
  } catch {
    throw new MissingPeer(
      '--protocol ag-ui needs the optional peer dependencies @ag-ui/core and @ag-ui/client (npm install @ag-ui/core @ag-ui/client)',
    );
  }
  const issues: ValidationResult['issues'] = [];
  values.forEach((value, index) => {
    const parsed = schemas.EventSchemas.safeParse(value);
    if (!parsed.success)
      for (const i of parsed.error.issues) issues.push({ index, path: i.path.map(String).join('.'), message: i.message });
  });
  if (issues.length === 0) {
    let seen = 0;
    let ended = false;
    await new Promise<void>((resolve) => {
      client
        .verifyEvents()(rxjs.from(values as import('@ag-ui/core').BaseEvent[]))
        .subscribe({
          next: (e) => {
            seen++;
            if (e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR') ended = true;
          },
          error: (err: unknown) => {
            issues.push({
              index: Math.min(seen, values.length - 1),
              path: 'type',
              message: `@ag-ui/client verifier: ${(err as Error)?.message ?? String(err)}`,
            });
            ended = true;
            resolve();
          },
          complete: () => resolve(),
        });
    });
    if (!ended)
      issues.push({
        index: Math.max(values.length - 1, 0),
        path: 'type',
        message: 'the stream ends without RUN_FINISHED or RUN_ERROR (truncated)',
      });
  }
  return { ok: issues.length === 0, issues };
}

export async function check(entries: Entry[], protocol: CheckedProtocol): Promise<LocatedIssue[]> {
  const issues: LocatedIssue[] = [];
  const values: unknown[] = [];
  const positions: number[] = []; // index in `values` → index in `entries`
  entries.forEach((entry, index) => {
    if (entry.kind === 'invalid') {
      issues.push({ index, where: entry.where, path: '', message: entry.message });
      return;
    }
    if (protocol === 'ai-sdk' && !entry.terminated) {
      issues.push({
        index,
        where: entry.where,
        path: '',
        message: 'the last SSE event has no closing blank line; the AI SDK client drops it',
      });
    }
    // [DONE] is the AI SDK's terminator; the other protocols' framing skips it.
    if (entry.kind === 'done' && protocol !== 'ai-sdk') return;
    values.push(entry.kind === 'done' ? AI_SDK_DONE : entry.value);
    positions.push(index);
  });
  const result = await VALIDATORS[protocol](values);
  for (const i of result.issues) {
    // A whole-stream issue (truncated, no run-finish) may point past the last value: the last entry.
    const index = positions[i.index] ?? positions.at(-1) ?? entries.length - 1;
    const where = entries[index]?.where;
    if (where) issues.push({ index, where, path: i.path, message: i.message });
  }
  return issues.sort((a, b) => a.index - b.index);
}

/** Passes the input through, noting whether it has anything but white space, and whether it is binary. */
async function* sniffed(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  seen: { text: boolean; binary: boolean },
): AsyncGenerator<Uint8Array> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of chunks) {
    if (!seen.binary) {
      try {
        utf8.decode(chunk, { stream: true });
      } catch {
        seen.binary = true;
      }
      if (chunk.includes(0)) seen.binary = true;
    }
    if (!seen.text) seen.text = chunk.some((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
    yield chunk;
  }
}

/** Runs `validate` with parsed flags (`--protocol` is required and checked). */
export async function run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number> {
  const protocol = flags.protocol as CheckedProtocol;
  let entries: Entry[];
  const seen = { text: false, binary: false };
  try {
    entries = await readEntries(sniffed((await openInput(positionals[0])).chunks, seen));
  } catch (err) {
    if (!(err instanceof CliIoError)) throw err;
    process.stderr.write(`switchboard validate: ${err.message}\n`);
    return 1;
  }
  let issues: LocatedIssue[];
  try {
    issues = await check(entries, protocol);
  } catch (err) {
    if (!(err instanceof MissingPeer)) throw err;
    process.stderr.write(`switchboard validate: ${err.message}\n`);
    return 1;
  }
  if (entries.length === 0) {
    // Nothing to locate an issue at: the verdict on the input as a whole.
    const why = seen.binary
      ? 'the input is binary (a NUL byte, or bytes that are not UTF-8), not text'
      : seen.text
        ? 'nothing in the input reads as an event (no SSE `data:` line, no JSON line)'
        : 'the input holds no events (blank lines only or empty)';
    process.stdout.write(`invalid: ${why}; a whole ${protocol} stream has at least one event\n`);
    return 1;
  }
  if (issues.length === 0) {
    process.stdout.write(`ok (${entries.length} event${entries.length === 1 ? '' : 's'})\n`);
    return 0;
  }
  let text = '';
  for (const i of issues) text += `event ${i.index} (${describeWhere(i.where)})${i.path ? ` ${i.path}` : ''}: ${i.message}\n`;
  process.stdout.write(text);
  return 1;
}
