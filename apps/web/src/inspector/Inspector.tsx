/**
 * The stream inspector: for a run, its canonical events (from `GET /api/runs/:runId/events`) beside
 * the frames each protocol's encoder makes of them, and the frames the page actually received live
 * (the tap). Filter by kind or text, see timing, export the run as a JSON Lines fixture.
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react';

import { findRunId, loadRunEvents } from '../lib/api.ts';
import { json, ms } from '../lib/format.ts';
import type { CanonicalEvent, ChatMessage } from '../lib/types.ts';
import { ENCODED_PROTOCOLS, encodeRun, type Row } from './encode.ts';
import { type LiveFrame, type LiveRun, latestLiveRun, liveRunFor, useLiveRuns } from './tap.ts';

const PAGE = 400;

const CATEGORIES = ['lifecycle', 'text', 'reasoning', 'tool', 'data', 'error'] as const;
type Category = (typeof CATEGORIES)[number];

export function categoryOf(type: string): Category {
  const t = type.toLowerCase();
  if (t.includes('error') || t === 'raw' || t === 'abort') return 'error';
  if (t.startsWith('run') || t.startsWith('step') || t.includes('start-step') || t.includes('finish') || t === 'start') return 'lifecycle';
  if (t.includes('reasoning')) return 'reasoning';
  if (t.includes('tool')) return 'tool';
  if (t.startsWith('text')) return 'text';
  return 'data';
}

const ENVELOPE = new Set(['type', 'runId', 'seq', 'ts']);

function summary(e: Record<string, unknown>, skip: Set<string> = ENVELOPE): string {
  const rest: Record<string, unknown> = {};
  for (const k in e) if (!skip.has(k)) rest[k] = e[k];
  const s = JSON.stringify(rest) ?? '';
  return s.length > 140 ? `${s.slice(0, 140)}…` : s;
}

function download(name: string, lines: string[]): void {
  const blob = new Blob([lines.join('\n') + (lines.length ? '\n' : '')], { type: 'application/x-ndjson' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

type Canonical =
  | { state: 'idle' | 'loading' }
  | { state: 'ok'; runId: string; events: CanonicalEvent[] }
  | { state: 'unavailable'; message: string };

interface Filter {
  text: string;
  hidden: Set<Category>;
  deltas: boolean;
}

function matches(type: string, haystack: () => string, f: Filter): boolean {
  if (f.hidden.has(categoryOf(type))) return false;
  if (!f.deltas && type.toLowerCase().includes('delta')) return false;
  if (!f.text) return true;
  const needle = f.text.toLowerCase();
  return type.toLowerCase().includes(needle) || haystack().toLowerCase().includes(needle);
}

/** What a frame is: its `type`, or what protocols without one call it (DSAgent's `metadata.message_type`, `event`). */
export function frameType(r: Record<string, unknown>): string {
  if (typeof r.type === 'string') return r.type;
  const meta = r.metadata;
  if (typeof meta === 'object' && meta !== null && typeof (meta as Record<string, unknown>).message_type === 'string')
    return String((meta as Record<string, unknown>).message_type);
  if (typeof r.event === 'string') return r.event;
  return typeof r.role === 'string' ? r.role : 'frame';
}

const FrameList = memo(function FrameList({ frames }: { frames: object[] | undefined }) {
  if (!frames?.length) return <span className="muted">—</span>;
  return (
    <>
      {frames.map((f, i) => {
        const r = f as Record<string, unknown>;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: frames of one event are positional
          <div key={i} className="frame" title={JSON.stringify(f)}>
            <b>{frameType(r)}</b> <span className="muted">{summary(r, new Set(['type']))}</span>
          </div>
        );
      })}
    </>
  );
});

/** A column header the reader can widen or narrow (drag its right edge). */
function Th({ children, width }: { children: string; width?: string }) {
  return (
    <th scope="col">
      <div className="resizable" style={width ? { width } : undefined}>
        {children}
      </div>
    </th>
  );
}

function CanonicalTable({ rows, filter }: { rows: Row[]; filter: Filter }) {
  const [limit, setLimit] = useState(PAGE);
  const [open, setOpen] = useState<number | null>(null);
  const visible = useMemo(() => rows.filter((r) => matches(r.event.type, () => JSON.stringify(r.event), filter)), [rows, filter]);
  const t0 = rows[0]?.event.ts ?? 0;
  return (
    <>
      <div className="muted small">
        {visible.length} of {rows.length} events
      </div>
      <table className="inspector-table" data-testid="canonical-table">
        <thead>
          <tr>
            <Th width="3em">seq</Th>
            <Th width="4em">+ms</Th>
            <Th width="22em">canonical</Th>
            {ENCODED_PROTOCOLS.map((p) => (
              <Th key={p} width="16em">
                {p}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody>
          {visible.slice(0, limit).flatMap((r, i) => {
            const prev = i > 0 ? visible[i - 1].event.ts : t0;
            const toggle = () => setOpen(open === r.event.seq ? null : r.event.seq);
            const row = (
              <tr key={r.event.seq} className={`cat-${categoryOf(r.event.type)}${open === r.event.seq ? ' open' : ''}`} onClick={toggle}>
                <td>
                  <button
                    type="button"
                    className="row-toggle"
                    aria-expanded={open === r.event.seq}
                    onClick={(e) => {
                      e.stopPropagation();
                      toggle();
                    }}
                  >
                    {r.event.seq}
                  </button>
                </td>
                <td title={`+${r.event.ts - prev} ms after the previous row`}>{r.event.ts - t0}</td>
                <td>
                  <b data-testid="event-type">{r.event.type}</b> <span className="muted">{summary(r.event)}</span>
                </td>
                {ENCODED_PROTOCOLS.map((p) => (
                  <td key={p}>
                    <FrameList frames={r.frames[p]} />
                    {r.errors?.[p] ? <div className="inline-error">{r.errors[p]}</div> : null}
                  </td>
                ))}
              </tr>
            );
            if (open !== r.event.seq) return [row];
            // The full JSON gets the width of the table, the event beside each protocol's frames.
            return [
              row,
              <tr key={`${r.event.seq}-json`} className="json-row">
                <td colSpan={3 + ENCODED_PROTOCOLS.length}>
                  <div className="json-columns">
                    <section>
                      <h4>canonical</h4>
                      <pre className="event-json">{json(r.event)}</pre>
                    </section>
                    {ENCODED_PROTOCOLS.map((p) => (
                      <section key={p}>
                        <h4>{p}</h4>
                        <pre className="event-json">{json(r.frames[p])}</pre>
                      </section>
                    ))}
                  </div>
                </td>
              </tr>,
            ];
          })}
        </tbody>
      </table>
      {visible.length > limit ? (
        <button type="button" className="link-button" onClick={() => setLimit(limit + PAGE)}>
          Show {Math.min(PAGE, visible.length - limit)} more
        </button>
      ) : null}
    </>
  );
}

function parse(f: LiveFrame): Record<string, unknown> {
  if (f.data === '[DONE]') return { type: '[DONE]' };
  try {
    const v: unknown = JSON.parse(f.data);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : { type: '?', value: v };
  } catch {
    return { type: 'unparsable', data: f.data };
  }
}

function LiveTable({ run, filter }: { run: LiveRun; filter: Filter; version: number }) {
  const [limit, setLimit] = useState(PAGE);
  const frames = run.frames;
  // Frames are parsed once, when first shown; the cache belongs to the run.
  const cache = useRef<{ run: LiveRun; parsed: Map<number, Record<string, unknown>> } | undefined>(undefined);
  if (cache.current?.run !== run) cache.current = { run, parsed: new Map() };
  const parsed = cache.current.parsed;
  const get = (i: number) => {
    let v = parsed.get(i);
    if (!v) {
      v = parse(frames[i]);
      parsed.set(i, v);
    }
    return v;
  };
  const shown: number[] = [];
  let total = 0;
  for (let i = 0; i < frames.length; i++) {
    const type = frameType(get(i));
    if (!matches(type, () => frames[i].data, filter)) continue;
    total++;
    if (shown.length < limit) shown.push(i);
  }
  return (
    <>
      <div className="muted small">
        {total} of {frames.length} frames ({run.protocol}
        {run.done ? '' : ', streaming'}
        {run.error ? `, ${run.error}` : ''})
      </div>
      <table className="inspector-table" data-testid="live-table">
        <thead>
          <tr>
            <Th width="3em">#</Th>
            <Th width="5em">+ms</Th>
            <Th width="4em">id</Th>
            <Th width="40em">{`${run.protocol} frame as received`}</Th>
          </tr>
        </thead>
        <tbody>
          {shown.map((i) => {
            const v = get(i);
            return (
              <tr key={i} className={`cat-${categoryOf(frameType(v))}`}>
                <td>{i}</td>
                <td>{frames[i].t.toFixed(1)}</td>
                <td className="muted">{frames[i].id ?? ''}</td>
                <td>
                  <b>{frameType(v)}</b> <span className="muted">{summary(v, new Set(['type']))}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {total > shown.length ? (
        <button type="button" className="link-button" onClick={() => setLimit(limit + PAGE)}>
          Show more
        </button>
      ) : null}
    </>
  );
}

interface Props {
  chatId: string;
  /** The chat has been sent something (before that there is no run to look for). */
  hasRun: boolean;
  /** The message whose run to show; the chat's latest run when absent. */
  message?: ChatMessage;
  onClose: () => void;
}

export function Inspector({ chatId, hasRun, message, onClose }: Props) {
  const { version } = useLiveRuns();
  const live = (message ? liveRunFor(message.id) : undefined) ?? (message ? undefined : latestLiveRun(chatId));
  const [canonical, setCanonical] = useState<Canonical>({ state: 'idle' });
  const [tab, setTab] = useState<'canonical' | 'live'>('canonical');
  const [text, setText] = useState('');
  const [hidden, setHidden] = useState<Set<Category>>(new Set());
  const [deltas, setDeltas] = useState(true);
  const filter = useMemo<Filter>(() => ({ text, hidden, deltas }), [text, hidden, deltas]);
  const liveDone = live?.done ?? true;
  const liveRunId = live?.runId;

  useEffect(() => {
    if (!liveDone) return;
    if (!hasRun && !message) {
      setCanonical({ state: 'idle' });
      return;
    }
    let stop = false;
    setCanonical({ state: 'loading' });
    (async () => {
      const runId = liveRunId ?? (await findRunId(chatId, message));
      if (stop) return;
      if (!runId) {
        setCanonical({
          state: 'unavailable',
          message:
            'No run id for this message: the server exposes neither the message\u2019s runId (history metadata) nor its canonical history.',
        });
        return;
      }
      const r = await loadRunEvents(runId);
      if (stop) return;
      if (r.ok) setCanonical({ state: 'ok', runId, events: r.data });
      else
        setCanonical({
          state: 'unavailable',
          message: r.missing
            ? `GET /api/runs/${runId}/events is not available on this server (HTTP ${r.status}).`
            : `GET /api/runs/${runId}/events failed: ${r.message}`,
        });
    })();
    return () => {
      stop = true;
    };
  }, [chatId, hasRun, message, liveDone, liveRunId]);

  const rows = useMemo(() => (canonical.state === 'ok' ? encodeRun(canonical.events) : []), [canonical]);
  const current = canonical.state !== 'ok' && live && tab === 'canonical' ? 'live' : tab;

  return (
    <aside className="inspector" data-testid="inspector" aria-label="Stream inspector">
      <header className="inspector-head">
        <h2>Inspector</h2>
        <span className="muted small">
          {canonical.state === 'ok' ? `run ${canonical.runId}` : message ? `message ${message.id}` : `chat ${chatId}`}
        </span>
        <button type="button" className="icon-button" onClick={onClose} aria-label="Close the inspector (Escape)">
          ✕
        </button>
      </header>
      <div className="tabs">
        <button
          type="button"
          className={current === 'canonical' ? 'on' : ''}
          onClick={() => setTab('canonical')}
          data-testid="tab-canonical"
        >
          Canonical ⇄ protocols
        </button>
        <button
          type="button"
          className={current === 'live' ? 'on' : ''}
          onClick={() => setTab('live')}
          disabled={!live}
          data-testid="tab-live"
        >
          Received live {live ? `(${live.frames.length})` : ''}
        </button>
      </div>
      <div className="filters">
        <input
          type="search"
          aria-label="Filter events by type or content"
          placeholder="Filter by type or content"
          value={text}
          onChange={(e) => setText(e.target.value)}
          data-testid="inspector-filter"
        />
        {CATEGORIES.map((c) => (
          <label key={c} className={`chip cat-${c}`}>
            <input
              type="checkbox"
              checked={!hidden.has(c)}
              onChange={() => {
                const next = new Set(hidden);
                if (next.has(c)) next.delete(c);
                else next.add(c);
                setHidden(next);
              }}
            />
            {c}
          </label>
        ))}
        <label className="chip">
          <input type="checkbox" checked={deltas} onChange={() => setDeltas(!deltas)} />
          deltas
        </label>
      </div>
      <div className="exports">
        {canonical.state === 'ok' ? (
          <button
            type="button"
            data-testid="export-fixture"
            onClick={() =>
              download(
                `run-${canonical.runId}.canonical.jsonl`,
                canonical.events.map((e) => JSON.stringify(e)),
              )
            }
          >
            Export fixture (.jsonl)
          </button>
        ) : null}
        {live ? (
          <button
            type="button"
            onClick={() =>
              download(
                `run-${live.runId ?? live.messageId ?? live.key}.${live.protocol}.jsonl`,
                live.frames.map((f) => f.data),
              )
            }
          >
            Export received frames (.jsonl)
          </button>
        ) : null}
        {canonical.state === 'ok' && canonical.events.length > 1 ? (
          <span className="muted small">
            {canonical.events.length} events in {ms(canonical.events.at(-1)!.ts - canonical.events[0].ts)}
          </span>
        ) : null}
      </div>
      {current === 'canonical' ? (
        canonical.state === 'ok' ? (
          <CanonicalTable rows={rows} filter={filter} />
        ) : canonical.state === 'unavailable' ? (
          <div className="notice" data-testid="inspector-unavailable">
            {canonical.message}
          </div>
        ) : canonical.state === 'idle' ? (
          <div className="notice" data-testid="inspector-empty">
            Nothing to inspect yet: send a message, and its run shows here as it streams.
          </div>
        ) : (
          <div className="muted">{live && !live.done ? 'The run is streaming; its canonical events load when it ends.' : 'Loading…'}</div>
        )
      ) : live ? (
        <>
          {canonical.state === 'unavailable' ? (
            <div className="notice" data-testid="inspector-unavailable">
              {canonical.message}
            </div>
          ) : null}
          <LiveTable run={live} filter={filter} version={version} />
        </>
      ) : (
        <div className="muted">Nothing received live for this message in this page.</div>
      )}
    </aside>
  );
}
