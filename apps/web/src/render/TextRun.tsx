/**
 * A run of prose: the message's consecutive text parts as one markdown document, with inline
 * citation markers. Hovering or focusing a marker shows its source (title, site, the quoted
 * passage); clicking it moves to the entry in the source list.
 */
import { memo, type MouseEvent as ReactMouseEvent, type SyntheticEvent, useState } from 'react';

import type { SourceEntry } from './citations.ts';
import { Markdown, SourcesContext } from './Markdown.tsx';

interface Props {
  text: string;
  streaming: boolean;
  sources: { idPrefix: string; entries: readonly SourceEntry[] };
}

interface Card {
  entry: SourceEntry;
  top: number;
  left: number;
}

function markerOf(e: SyntheticEvent): HTMLAnchorElement | null {
  const t = e.target;
  return t instanceof Element ? t.closest<HTMLAnchorElement>('a[data-cite]') : null;
}

export const TextRun = memo(function TextRun({ text, streaming, sources }: Props) {
  const [card, setCard] = useState<Card>();
  const show = (e: SyntheticEvent) => {
    const a = markerOf(e);
    const entry = a ? sources.entries[Number(a.dataset.cite) - 1] : undefined;
    if (!a || !entry) return;
    const box = a.getBoundingClientRect();
    setCard({ entry, top: box.bottom + 6, left: Math.max(8, Math.min(box.left, window.innerWidth - 328)) });
  };
  const hide = (e: SyntheticEvent) => {
    if (markerOf(e)) setCard(undefined);
  };
  const jump = (e: ReactMouseEvent) => {
    const a = markerOf(e);
    if (!a) return;
    e.preventDefault();
    const target = document.getElementById(`${sources.idPrefix}-${a.dataset.cite}`);
    target?.scrollIntoView({ block: 'nearest' });
    target?.focus({ preventScroll: true });
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: delegation for the citation links inside (real <a> elements)
    <div
      className="text-part"
      data-testid="text-part"
      onMouseOver={show}
      onMouseOut={hide}
      onFocus={show}
      onBlur={hide}
      onClick={jump}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setCard(undefined);
      }}
    >
      <SourcesContext.Provider value={sources.idPrefix}>
        <Markdown text={text} streaming={streaming} />
      </SourcesContext.Provider>
      {card ? (
        <div className="cite-card" role="tooltip" data-testid="cite-card" style={{ top: card.top, left: card.left }}>
          <div className="cite-card-title">
            <span className="cite-n">{card.entry.n}</span> {card.entry.title ?? card.entry.host ?? card.entry.url}
          </div>
          {card.entry.host ? <div className="muted small">{card.entry.host}</div> : null}
          {card.entry.quotes[0] ? <q className="cite-quote">{card.entry.quotes[0]}</q> : null}
        </div>
      ) : null}
    </div>
  );
});
