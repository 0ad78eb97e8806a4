/**
 * The one choke point every decoder runs behind (see `createDecoder`): whatever a decoder does with
 * hostile input, `push`, `fault` and `end` never throw, and the events that come out are safe for
 * every encoder and official client. The rules are in `model/hostile.ts` and docs/hostile-input.md.
 *
 * - Input values nested deeper than {@link MAX_DEPTH} are not pushed: a located `too_deep` error.
 * - Input values with unsafe keys / non-finite numbers / null prototypes are pushed as a clean copy,
 *   after a located `unsafe_input` warning that keeps what was taken out.
 * - A decoder that throws: its push becomes a located `decoder_error` and decoding goes on with the
 *   next value (the events before are kept). A throwing `end` still ends the run (`run-finish`).
 * - Events coming out are cleaned the same way (a decoder may parse tool-input text into objects),
 *   and a reused tool call id is renamed (see {@link ToolIds}).
 */
import { describe } from '../codec/framing.ts';
import type { CanonicalEvent, Location } from '../model/events.ts';
import { clean, dropFromEvent, inspect, MAX_DEPTH, type Removed } from '../model/hostile.ts';
import type { Decoder } from './decoder.ts';

function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Events whose fields are all strings the decoder built: nothing to clean. */
const FLAT = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta', 'text-start', 'text-end', 'step-start', 'run-abort']);

/**
 * The reused id rule, for tool calls and subagents: one id names one call / one subagent run. When
 * an event opens one (`tool-input-start`, or a `tool-input-end` with none open; `subagent-start`,
 * or a `subagent-finish` with none open) with an id whose call / run has already ended (`tool-input-end`
 * / `subagent-finish`), it is a new one and gets the id `<id>~2` (then `~3`, …), with a warning; the
 * events after it that name the id follow the new id.
 */
class IdRule {
  private readonly ended = new Set<string>();
  private readonly open = new Set<string>();
  private readonly current = new Map<string, string>();
  private readonly count = new Map<string, number>();

  readonly field: 'toolCallId' | 'subagentId';
  private readonly starts: string;
  private readonly ends: string;

  constructor(field: 'toolCallId' | 'subagentId', starts: string, ends: string) {
    this.field = field;
    this.starts = starts;
    this.ends = ends;
  }

  /** The id the event should carry, and whether it was renamed just now; undefined when it has none. */
  map(e: CanonicalEvent): { was: string; id: string; renamed: boolean } | undefined {
    const original = (e as Record<string, unknown>)[this.field];
    if (typeof original !== 'string') return undefined;
    let id = this.current.get(original) ?? original;
    let renamed = false;
    const opens = e.type === this.starts || (e.type === this.ends && !this.open.has(id));
    if (opens && this.ended.has(id)) {
      const n = (this.count.get(original) ?? 1) + 1;
      this.count.set(original, n);
      id = `${original}~${n}`;
      this.current.set(original, id);
      renamed = true;
    }
    if (e.type === this.starts) this.open.add(id);
    if (e.type === this.ends) {
      this.open.delete(id);
      this.ended.add(id);
    }
    if (id !== original) (e as Record<string, unknown>)[this.field] = id;
    return { was: original, id, renamed };
  }
}

/** Wraps a decoder so that it never throws and emits only safe events. */
export function guard(decoder: Decoder, maxDepth = MAX_DEPTH): Decoder {
  let runId: string | undefined;
  let lastSeq = -1;
  let lastTs = 0;
  let finished = false;
  let values = 0;
  const rules = [
    new IdRule('toolCallId', 'tool-input-start', 'tool-input-end'),
    new IdRule('subagentId', 'subagent-start', 'subagent-finish'),
  ];
  const renameIds = (e: CanonicalEvent, warnings: { message: string; removed: Removed[] }[]): void => {
    for (const rule of rules) {
      const r = rule.map(e);
      if (r?.renamed)
        warnings.push({
          message: `${e.type} event ${e.seq}: ${rule.field === 'toolCallId' ? 'tool call' : 'subagent'} id "${r.was}" was already used by an earlier ${rule.field === 'toolCallId' ? 'call' : 'subagent run'}; this one is "${r.id}"`,
          removed: [],
        });
    }
  };

  /** Cleans events in place (they are fresh objects of this decoder) and collects warnings. */
  const sanitize = (events: CanonicalEvent[]): { out: CanonicalEvent[]; warnings: { message: string; removed: Removed[] }[] } => {
    const warnings: { message: string; removed: Removed[] }[] = [];
    const out: CanonicalEvent[] = [];
    for (let e of events) {
      if (!FLAT.has(e.type)) {
        const found = inspect(e, maxDepth + 8);
        if (found.tooDeep) {
          warnings.push({ message: `a ${e.type} event nested deeper than ${maxDepth} levels was dropped`, removed: [] });
          continue;
        }
        if (found.unsafe) {
          const removed: Removed[] = [];
          e = clean(e, removed, dropFromEvent) as CanonicalEvent;
          if (removed.length) warnings.push({ message: `${e.type} event ${e.seq}: ${summary(removed)}`, removed });
        }
      }
      renameIds(e, warnings);
      runId = e.runId;
      if (e.seq > lastSeq) lastSeq = e.seq;
      lastTs = e.ts;
      if (e.type === 'run-finish' || e.type === 'run-abort') finished = true;
      out.push(e);
    }
    return { out, warnings };
  };

  /** Runs one decoder call; a throw becomes a located error; warnings follow the events they are about. */
  const call = (where: Location | undefined, what: string, f: () => CanonicalEvent[]): CanonicalEvent[] => {
    let events: CanonicalEvent[];
    try {
      events = f();
    } catch (err) {
      events = safeFault('decoder_error', `${describe(where ?? {})}: the decoder failed on this ${what} (${reason(err)}); skipped`, where);
      return sanitize(events).out;
    }
    const { out, warnings } = sanitize(events);
    for (const w of warnings) {
      for (const e of sanitize(safeFault('unsafe_output', w.message, where, w.removed)).out) out.push(e);
    }
    return out;
  };

  const safeFault = (code: string, message: string, where: Location | undefined, removed: Removed[] = []): CanonicalEvent[] => {
    try {
      const events = decoder.fault(code, message, where ?? {});
      if (removed.length)
        for (const e of events)
          if (e.type === 'error' && e.code === code)
            e.providerMetadata = { switchboard: { removed: removed.map((r) => ({ path: r.path, action: r.action, json: r.json })) } };
      return events;
    } catch {
      return [];
    }
  };

  return {
    push(value, where) {
      const at = where ?? { event: ++values };
      const found = inspect(value, maxDepth);
      if (found.tooDeep)
        return call(at, 'value', () =>
          decoder.fault('too_deep', `${describe(at)}: nested deeper than ${maxDepth} levels; skipped`, {
            ...at,
            expected: `at most ${maxDepth} levels of nesting`,
          }),
        );
      if (!found.unsafe) return call(at, 'value', () => decoder.push(value, where));
      const removed: Removed[] = [];
      const safe = clean(value, removed);
      const out = removed.length
        ? call(at, 'value', () => safeFault('unsafe_input', `${describe(at)}: ${summary(removed)}`, at, removed))
        : [];
      for (const e of call(at, 'value', () => decoder.push(safe, where))) out.push(e);
      return out;
    },
    fault(code, message, where) {
      return call(where, 'fault', () => decoder.fault(code, message, where));
    },
    end() {
      const out = call(undefined, 'end of input', () => decoder.end());
      if (!finished && runId !== undefined) {
        // The decoder failed to end its run: end it here so that every consumer sees a clean end.
        out.push({ type: 'run-finish', runId, seq: ++lastSeq, ts: lastTs, finishReason: 'error' } as CanonicalEvent);
        finished = true;
      }
      return out;
    },
  };
}

function summary(removed: Removed[]): string {
  const parts = removed.slice(0, 3).map((r) => (r.action === 'nulled' ? `${r.path} (${r.json}) replaced by null` : `${r.path} removed`));
  const more = removed.length > 3 ? ` and ${removed.length - 3} more` : '';
  return `unsafe for JSON clients: ${parts.join(', ')}${more}; the original values are kept in providerMetadata.switchboard.removed`;
}
