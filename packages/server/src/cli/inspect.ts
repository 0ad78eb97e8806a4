/**
 * `switchboard inspect <capture|runId>`: a readable timeline of a run in the terminal — a recorded
 * capture of any framework (decoded like `convert` does) or a run stored by the gateway (read from
 * the configured store). One line per canonical event: time since the run started, seq, event type,
 * the block it belongs to (text, reasoning:thinking / processing, tool:<name>, step, run…) and its
 * text or payload, truncated to the terminal width; colored on a terminal (`--color`), then a
 * one-line summary. Exit 0; 1 when there is no such file or stored run (or it cannot be read); 2 on
 * usage errors.
 */
import { stat } from 'node:fs/promises';
import { type CanonicalEvent, FRAMEWORKS, type Framework } from '@switchboard/core';

import { replayCapture } from '../agents/replay.ts';
import { openConfiguredStore } from './chats.ts';
import { ioFailure, openInput, openOutput } from './io.ts';

function usage(message: string): number {
  process.stderr.write(`switchboard inspect: ${message}\nRun "switchboard inspect --help" for the options.\n`);
  return 2;
}

const ANSI = {
  reset: '\x1b[0m',
  dim: '\x1b[2m',
  bold: '\x1b[1m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  blue: '\x1b[34m',
  magenta: '\x1b[35m',
  cyan: '\x1b[36m',
  gray: '\x1b[90m',
} as const;
type Color = keyof typeof ANSI;

/** Which block an event belongs to, as a label and a color. */
interface Kind {
  label: string;
  color: Color;
}

/** Turns events into timeline lines; keeps the block kinds it has seen. */
export class Timeline {
  private readonly blocks = new Map<string, Kind>();
  private readonly tools = new Map<string, string>();
  private start: number | undefined;
  private readonly color: boolean;
  private readonly width: number;
  count = 0;
  first: number | undefined;
  last: number | undefined;
  finish: string | undefined;
  usage: string | undefined;

  constructor(options: { color: boolean; width: number }) {
    this.color = options.color;
    this.width = Math.max(60, options.width);
  }

  private paint(color: Color, text: string): string {
    return this.color ? `${ANSI[color]}${text}${ANSI.reset}` : text;
  }

  private kindOf(e: CanonicalEvent): Kind {
    const any = e as Record<string, unknown>;
    switch (e.type) {
      case 'run-start':
      case 'run-finish':
      case 'run-abort':
        return { label: 'run', color: 'cyan' };
      case 'text-start': {
        const k: Kind = { label: 'text', color: 'green' };
        this.blocks.set(e.blockId, k);
        return k;
      }
      case 'reasoning-start': {
        const k: Kind = { label: `reasoning:${e.variant}`, color: 'magenta' };
        this.blocks.set(e.blockId, k);
        return k;
      }
      case 'tool-input-start':
        this.tools.set(e.toolCallId, e.toolName);
        return { label: `tool:${e.toolName}`, color: 'yellow' };
      case 'error':
        return { label: 'error', color: 'red' };
      case 'step-start':
      case 'step-finish':
        return { label: 'step', color: 'blue' };
      default:
        if (typeof any.blockId === 'string') return this.blocks.get(any.blockId) ?? { label: 'block', color: 'gray' };
        if (typeof any.toolCallId === 'string') {
          const name = this.tools.get(any.toolCallId) ?? (typeof any.toolName === 'string' ? any.toolName : '?');
          return { label: `tool:${name}`, color: e.type === 'tool-error' ? 'red' : 'yellow' };
        }
        return { label: e.type.split('-')[0], color: 'gray' };
    }
  }

  private detail(e: CanonicalEvent): string {
    const any = e as Record<string, unknown>;
    const json = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? ''));
    switch (e.type) {
      case 'run-start':
        return [e.agent && `agent ${e.agent}`, e.model && `model ${e.model}`, `message ${e.messageId}`, e.chatId && `chat ${e.chatId}`]
          .filter(Boolean)
          .join(' · ');
      case 'run-finish':
        this.finish = e.finishReason;
        return `finish ${e.finishReason}${e.rawFinishReason ? ` (${e.rawFinishReason})` : ''}`;
      case 'run-abort':
        this.finish = 'aborted';
        return e.reason ? `aborted: ${e.reason}` : 'aborted';
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-input-delta':
        return json(e.delta);
      case 'tool-input-end':
        return `input ${json(any.input)}`;
      case 'tool-output':
        return `output ${json(e.output)}`;
      case 'tool-error':
        return `error ${json(e.error)}`;
      case 'error':
        return `${any.fatal ? 'fatal: ' : ''}${e.message}${typeof any.code === 'string' ? ` [${any.code}]` : ''}`;
      case 'usage': {
        const u = any.usage as Record<string, unknown> | undefined;
        this.usage = u ? `in ${u.inputTokens ?? '?'} / out ${u.outputTokens ?? '?'}` : undefined;
        return json(u);
      }
      case 'todos':
        return `${any.change}: ${((any.todos as { status: string; content: string }[] | undefined) ?? []).map((t) => `[${t.status === 'completed' ? 'x' : t.status === 'in_progress' ? '~' : ' '}] ${t.content}`).join(' ')}`;
      case 'status':
        return json(any.message ?? any.status);
      case 'step-start':
        return `${e.kind}${e.name ? ` ${e.name}` : ''}`;
      case 'step-finish':
        return e.finishReason ? `finish ${e.finishReason}` : '';
      case 'source':
        return `${e.kind} ${e.url ?? e.title ?? e.sourceId}`;
      default: {
        const { type: _t, runId: _r, seq: _s, ts: _ts, blockId: _b, toolCallId: _c, ...rest } = any;
        return Object.keys(rest).length ? json(rest) : '';
      }
    }
  }

  /** The line of one event. */
  line(e: CanonicalEvent): string {
    this.count++;
    this.start ??= e.ts;
    this.first ??= e.ts;
    this.last = e.ts;
    const rel = `+${((e.ts - this.start) / 1000).toFixed(3)}s`.padStart(10);
    const seq = String(e.seq).padStart(5);
    const kind = this.kindOf(e);
    const head = `${rel} ${seq}  ${e.type.padEnd(16)} ${kind.label.padEnd(20)} `;
    const room = Math.max(10, this.width - head.length);
    let detail = this.detail(e).replace(/\n/g, '\\n');
    if (detail.length > room) detail = `${detail.slice(0, room - 1)}…`;
    const colored = e.type.endsWith('-delta') ? detail : this.paint(kind.color, detail);
    return `${this.paint('dim', rel)} ${this.paint('dim', seq)}  ${this.paint(kind.color, e.type.padEnd(16))} ${this.paint(kind.color, kind.label.padEnd(20))} ${colored}`.trimEnd();
  }

  /** The closing summary. */
  summary(): string {
    const span = this.first !== undefined && this.last !== undefined ? ((this.last - this.first) / 1000).toFixed(3) : '0.000';
    const parts = [`${this.count} events over ${span}s`];
    if (this.finish) parts.push(`finish: ${this.finish}`);
    if (this.usage) parts.push(`usage: ${this.usage}`);
    return this.paint('bold', parts.join(' · '));
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Runs `inspect`. */
export async function run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number> {
  const target = positionals[0];
  if (target === undefined) return usage('missing what to inspect: a capture file, - for stdin, or a stored run id');
  const from = flags.from ?? 'auto';
  if (from !== 'auto' && from !== 'canonical' && !Object.hasOwn(FRAMEWORKS, from))
    return usage(`invalid --from "${from}"; expected one of: auto, canonical, ${Object.keys(FRAMEWORKS).join(', ')}`);
  const when = flags.color ?? 'auto';
  const color = when === 'always' || (when === 'auto' && process.stdout.isTTY === true && !process.env.NO_COLOR);
  let width = process.stdout.columns || 120;
  if (flags.width !== undefined) {
    width = Number(flags.width);
    if (!Number.isInteger(width) || width < 40) return usage(`invalid --width "${flags.width}"; expected an integer ≥ 40`);
  }
  const timeline = new Timeline({ color, width });

  let events: AsyncIterable<CanonicalEvent> | Iterable<CanonicalEvent>;
  let close = async () => {};
  let source: string;
  try {
    if (target === '-' || (await isFile(target))) {
      const input = await openInput(target);
      source = target === '-' ? 'stdin' : target;
      events = replayCapture(input.chunks, { from: from as Framework | 'auto' | 'canonical', speed: 0 });
    } else {
      const opened = await openConfiguredStore(flags.config, 'inspect');
      if (typeof opened === 'number') return opened;
      close = opened.close;
      const run = await opened.store.getRun(target);
      if (!run) {
        process.stderr.write(`switchboard inspect: no such file, and no stored run ${JSON.stringify(target)}\n`);
        return 1;
      }
      source = `run ${run.id} of chat ${run.chatId} (${run.status})`;
      events = await opened.store.read(run.id);
    }
    const out = await openOutput(flags.output);
    await out.write(`${color ? ANSI.bold : ''}${source}${color ? ANSI.reset : ''}\n`);
    for await (const e of events) await out.write(`${timeline.line(e)}\n`);
    await out.write(`${timeline.summary()}\n`);
    await out.close();
  } catch (err) {
    return ioFailure('inspect', err);
  } finally {
    await close();
  }
  return 0;
}
