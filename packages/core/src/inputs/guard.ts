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
import { clean, dropFromEvent, MAX_DEPTH, type Removed, scan, TOO_DEEP } from '../model/hostile.ts';
import type { Decoder } from './decoder.ts';

function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** An event type whose fields are all strings the decoder built: nothing to clean. */
const FLAT = 1;
/** An event type that opens or ends a tool call or subagent run (see {@link IdRule}). */
const OPENS_OR_ENDS = 2;
/** An event type that ends the run. */
const ENDS_RUN = 3;
/** An approval asked or answered: once each per approval id (a repeated line would ask twice). */
const APPROVAL = 4;
/** The event types of {@link FLAT}: most of a stream (every delta). */
const FLAT_TYPES: ReadonlySet<string> = new Set([
  'text-delta',
  'reasoning-delta',
  'tool-input-delta',
  'text-start',
  'text-end',
  'step-start',
]);
/** The kinds, by event type: one lookup per event. */
const KIND = new Map<string, number>([
  ...[...FLAT_TYPES].map((t) => [t, FLAT] as const),
  ...['tool-input-start', 'tool-input-end', 'subagent-start', 'subagent-finish'].map((t) => [t, OPENS_OR_ENDS] as const),
  ...['run-finish', 'run-abort'].map((t) => [t, ENDS_RUN] as const),
  ...['tool-approval-request', 'tool-approval-response'].map((t) => [t, APPROVAL] as const),
]);

/** A warning about an event of one decoder call, emitted after that call's events. */
interface Warning {
  message: string;
  removed: Removed[];
}

/** Adds a warning to a list that is only made for the first one. */
function add(list: Warning[] | undefined, w: Warning): Warning[] {
  if (!list) return [w];
  list.push(w);
  return list;
}

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
  /** Whether an id was renamed yet: until then only the events that open or end one are read. */
  renamed = false;
  private readonly starts: string;
  private readonly ends: string;

  constructor(field: 'toolCallId' | 'subagentId', starts: string, ends: string) {
    this.field = field;
    this.starts = starts;
    this.ends = ends;
  }

  /** Gives the event the id it should carry; returns a warning when it was renamed just now. */
  map(e: CanonicalEvent): string | undefined {
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
      this.renamed = renamed = true;
    }
    if (e.type === this.starts) this.open.add(id);
    if (e.type === this.ends) {
      this.open.delete(id);
      this.ended.add(id);
    }
    if (id !== original) (e as Record<string, unknown>)[this.field] = id;
    if (!renamed) return undefined;
    const tool = this.field === 'toolCallId';
    return `${e.type} event ${e.seq}: ${tool ? 'tool call' : 'subagent'} id "${original}" was already used by an earlier ${tool ? 'call' : 'subagent run'}; this one is "${id}"`;
  }
}

/**
 * Wraps a decoder so that it never throws and emits only safe events. Built for the hot path (one
 * `push` per input line, most of them deltas): a safe value costs one {@link scan}, the decoder's
 * array comes back as it is, and nothing is allocated unless something has to change.
 */
export function guard(decoder: Decoder, maxDepth = MAX_DEPTH): Decoder {
  // The last event out: a run the decoder failed to end is ended after it (run id, next seq, its
  // time). Kept as the event, read only at the end: reading its fields on every call costs more than
  // the rest of a delta's guard (events of many shapes pass here).
  let last: CanonicalEvent | undefined;
  let finished = false;
  let values = 0;
  const toolIds = new IdRule('toolCallId', 'tool-input-start', 'tool-input-end');
  const subagentIds = new IdRule('subagentId', 'subagent-start', 'subagent-finish');
  /** Approval ids asked and answered so far: a second request or answer for one is dropped, with a warning. */
  const approvals = { 'tool-approval-request': new Set<string>(), 'tool-approval-response': new Set<string>() };
  /** The tool call each approval was asked for (its id as emitted): the answer names that call. */
  const askedFor = new Map<string, string>();

  /**
   * Makes the events of one decoder call safe, in place (they are fresh objects of this decoder):
   * the same array unless an event is dropped (then a copy), with a located warning per cleaned
   * event or renamed id after them when `warn` (not for the warnings themselves).
   */
  const settle = (events: CanonicalEvent[], where: Location | undefined, warn: boolean): CanonicalEvent[] => {
    let out: CanonicalEvent[] | undefined; // the copy, from the first dropped event on
    let warnings: Warning[] | undefined;
    for (let i = 0; i < events.length; i++) {
      let e = events[i] as CanonicalEvent;
      const type = e.type;
      const kind = KIND.get(type);
      if (kind !== FLAT) {
        const found = scan(e, maxDepth + 8);
        if (found & TOO_DEEP) {
          out ??= events.slice(0, i);
          warnings = add(warnings, { message: `a ${type} event nested deeper than ${maxDepth} levels was dropped`, removed: [] });
          continue;
        }
        if (found !== 0) {
          const removed: Removed[] = [];
          e = clean(e, removed, dropFromEvent) as CanonicalEvent;
          if (!out) events[i] = e;
          if (removed.length) warnings = add(warnings, { message: `${type} event ${e.seq}: ${summary(removed)}`, removed });
        }
      }
      if (kind === APPROVAL) {
        const id = (e as { approvalId?: unknown }).approvalId;
        const seen = approvals[type as keyof typeof approvals];
        if (typeof id === 'string' && seen.has(id)) {
          out ??= events.slice(0, i);
          const what = type === 'tool-approval-request' ? 'requested' : 'answered';
          warnings = add(warnings, {
            message: `${type} event ${e.seq}: approval "${id}" was already ${what} in this run; dropped`,
            removed: [],
          });
          continue;
        }
        if (typeof id === 'string') seen.add(id);
      }
      if (kind === OPENS_OR_ENDS || toolIds.renamed || subagentIds.renamed) {
        const tool = toolIds.map(e);
        if (tool !== undefined) warnings = add(warnings, { message: tool, removed: [] });
        const subagent = subagentIds.map(e);
        if (subagent !== undefined) warnings = add(warnings, { message: subagent, removed: [] });
      }
      if (kind === APPROVAL) {
        // A repeated call (a duplicated line) is renamed, and the id rule would give an answer after it
        // the new id; the answer is for the call its approval was asked for.
        const a = e as { approvalId?: unknown; toolCallId?: unknown };
        if (typeof a.approvalId === 'string' && typeof a.toolCallId === 'string') {
          if (type === 'tool-approval-request') askedFor.set(a.approvalId, a.toolCallId);
          else {
            const call = askedFor.get(a.approvalId);
            if (call !== undefined) a.toolCallId = call;
          }
        }
      }
      if (kind === ENDS_RUN) finished = true;
      out?.push(e);
    }
    // The decoder stamps seq in order: the last event has the run id, seq and time an end needs.
    const settled = out ?? events;
    if (settled.length > 0) last = settled[settled.length - 1];
    if (!warnings || !warn) return out ?? events;
    const all = out ?? events.slice();
    for (const w of warnings) for (const e of settle(safeFault('unsafe_output', w.message, where, w.removed), where, false)) all.push(e);
    return all;
  };

  /** True when there is nothing to settle: only flat events, and no id renamed so far (then remembers the last). */
  const plain = (events: CanonicalEvent[]): boolean => {
    if (toolIds.renamed || subagentIds.renamed) return false;
    for (let i = 0; i < events.length; i++) if (!FLAT_TYPES.has((events[i] as CanonicalEvent).type)) return false;
    if (events.length > 0) last = events[events.length - 1];
    return true;
  };

  /** What a call that threw gives instead: a located `decoder_error`, or nothing if even that fails. */
  const failed = (where: Location | undefined, what: string, err: unknown): CanonicalEvent[] => {
    try {
      return settle(
        safeFault('decoder_error', `${describe(where ?? {})}: the decoder failed on this ${what} (${reason(err)}); skipped`, where),
        where,
        false,
      );
    } catch {
      return [];
    }
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

  /** A value that is too deep or needs cleaning first (rare: never for a delta). */
  const pushHostile = (value: unknown, where: Location | undefined, at: Location, found: number): CanonicalEvent[] => {
    try {
      if (found & TOO_DEEP)
        return settle(
          decoder.fault('too_deep', `${describe(at)}: nested deeper than ${maxDepth} levels; skipped`, {
            ...at,
            expected: `at most ${maxDepth} levels of nesting`,
          }),
          at,
          true,
        );
      const removed: Removed[] = [];
      const safe = clean(value, removed);
      const out = removed.length
        ? [...settle(safeFault('unsafe_input', `${describe(at)}: ${summary(removed)}`, at, removed), at, true)]
        : [];
      let events: CanonicalEvent[];
      try {
        events = settle(decoder.push(safe, where), at, true);
      } catch (err) {
        events = failed(at, 'value', err); // after the warning, which stays
      }
      for (const e of events) out.push(e);
      return out;
    } catch (err) {
      return failed(at, 'value', err);
    }
  };

  return {
    push(value, where) {
      const at = where ?? { event: ++values };
      let events: CanonicalEvent[];
      try {
        const found = scan(value, maxDepth);
        if (found !== 0) return pushHostile(value, where, at, found);
        events = decoder.push(value, where);
      } catch (err) {
        return failed(at, 'value', err);
      }
      // The hot path: a safe value whose events are all flat (deltas) and no id renamed yet. Kept
      // this small on purpose: with the settling inline it costs 25–40% of a delta's conversion, far
      // more than its checks (an in-process A/B); this way ≈ 5–10%.
      return plain(events) ? events : settle(events, at, true);
    },
    fault(code, message, where) {
      try {
        return settle(decoder.fault(code, message, where), where, true);
      } catch (err) {
        return failed(where, 'fault', err);
      }
    },
    end() {
      let out: CanonicalEvent[];
      try {
        out = settle(decoder.end(), undefined, true);
      } catch (err) {
        out = failed(undefined, 'end of input', err);
      }
      if (!finished && last !== undefined) {
        const { runId, seq, ts } = last;
        // The decoder failed to end its run: end it here so that every consumer sees a clean end.
        out = [...out, { type: 'run-finish', runId, seq: seq + 1, ts, finishReason: 'error' } as CanonicalEvent];
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
