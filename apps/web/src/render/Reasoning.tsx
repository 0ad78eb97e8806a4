/**
 * A reasoning block as the simplified Claude agent format's UI shows it: a *processing* block
 * (agent status: "Processing…", then "Processed in Xs") or a *thinking* block ("Thinking…", then
 * "Thought for Xs").
 *
 * - Open while it streams, with a live timer.
 * - 500 ms after it ends it collapses by itself, unless the user opened it.
 * - `hasNewerBlock`: when a newer reasoning block appears, this one collapses (unless the user opened it).
 * - The duration is the one the server stored (`providerMetadata.switchboard.durationMs`) when there
 *   is one, so a reloaded conversation says the same; while streaming it is measured here.
 * - From history (never seen streaming) it starts collapsed.
 * - A block with no text (OpenAI's hidden reasoning, Anthropic's signature-only thinking) shows its
 *   live timer while it streams and nothing once it ended: an expander that opens to nothing is noise.
 * - While it streams, its text pane follows the newest line.
 */
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';

import { duration, liveSeconds } from '../lib/format.ts';
import type { Variant } from '../lib/types.ts';

export const COLLAPSE_DELAY_MS = 500;

function LiveTimer({ since }: { since: number }) {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const id = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(id);
  }, []);
  return (
    <span className="timer" data-testid="live-timer">
      {liveSeconds(now - since)}
    </span>
  );
}

interface Props {
  text: string;
  variant: Variant;
  /** Still streaming. */
  live: boolean;
  /** Duration the server stored, if known. */
  storedMs?: number;
  hasNewerBlock: boolean;
}

export const Reasoning = memo(function Reasoning({ text, variant, live, storedMs, hasNewerBlock }: Props) {
  const startedAt = useRef<number | null>(live ? performance.now() : null);
  const [measuredMs, setMeasuredMs] = useState<number | undefined>(undefined);
  // What the block does by itself; `manual` (the user's last click) wins over it.
  const [autoOpen, setAutoOpen] = useState(live);
  const [manual, setManual] = useState<boolean | null>(null);
  const wasLive = useRef(live);

  useEffect(() => {
    if (live) {
      startedAt.current ??= performance.now();
      wasLive.current = true;
      if (!hasNewerBlock) setAutoOpen(true);
      return;
    }
    if (!wasLive.current) return;
    wasLive.current = false;
    if (startedAt.current !== null) setMeasuredMs(performance.now() - startedAt.current);
    const timer = setTimeout(() => setAutoOpen(false), COLLAPSE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [live, hasNewerBlock]);

  useEffect(() => {
    if (hasNewerBlock) setAutoOpen(false);
  }, [hasNewerBlock]);

  const pane = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow the text as it grows
  useLayoutEffect(() => {
    const el = pane.current;
    if (live && el) el.scrollTop = el.scrollHeight;
  }, [text, live]);

  const open = manual ?? autoOpen;
  const empty = text.trim() === '';
  if (empty && !live) return null;
  const processing = variant === 'processing';
  const durationMs = storedMs ?? measuredMs;
  let label: string;
  if (live) label = processing ? 'Processing…' : 'Thinking…';
  else if (durationMs !== undefined) label = processing ? `Processed in ${duration(durationMs)}` : `Thought for ${duration(durationMs)}`;
  else label = processing ? 'Processed' : 'Thought';

  return (
    <details
      className={`reasoning ${variant}`}
      data-testid="reasoning"
      data-variant={variant}
      data-state={live ? 'streaming' : 'done'}
      open={open}
      onToggle={(e) => {
        // Toggles React caused match `open`; a different state is the user's click.
        if (e.currentTarget.open !== open) setManual(e.currentTarget.open);
      }}
    >
      <summary title={durationMs !== undefined ? `${Math.round(durationMs)} ms` : undefined}>
        <span className="icon" aria-hidden>
          {processing ? (live ? '⚙' : '✓') : '✦'}
        </span>
        <span className="label">{label}</span>
        {live && startedAt.current !== null ? <LiveTimer since={startedAt.current} /> : null}
        {empty ? null : <span className="chevron" aria-hidden />}
      </summary>
      <div className="reasoning-text" ref={pane}>
        {text}
      </div>
    </details>
  );
});
