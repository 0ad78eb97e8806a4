/**
 * Citations and sources of one message, numbered once. A cited text part gets inline markers
 * `[n]` after its text; the message ends with one numbered source list, and marker n is entry n of
 * it. Sources are numbered in the order the text first cites them; sources nobody cited follow.
 * The same source cited twice keeps its number. Sources that are the same page (same URL), or the
 * same site behind a redirect (Gemini grounding: one `vertexaisearch` link per chunk, titled with
 * the domain), are one entry.
 */
import { hostOf } from '../lib/format.ts';
import { isRecord, type LoosePart } from '../lib/types.ts';

export interface SourceEntry {
  /** 1-based number, as the markers show it. */
  n: number;
  url?: string;
  title?: string;
  host?: string;
  /** Passages of this source the text quotes. */
  quotes: string[];
  /** How many source parts were folded into this entry. */
  count: number;
}

export interface MessageSources {
  entries: SourceEntry[];
  /** Marker numbers to append after each cited part (by part index). */
  markers: Map<number, number[]>;
}

interface Raw {
  url?: string;
  title?: string;
}

function keyOf(s: Raw): string {
  const host = s.url ? hostOf(s.url) : undefined;
  // A title that is a domain other than the link's host: one entry per site, not per redirect link.
  if (s.title && host && /^[\w-]+(\.[\w-]+)+$/.test(s.title) && !host.endsWith(s.title)) return `site:${s.title}`;
  return s.url ? `url:${s.url}` : `title:${s.title ?? ''}`;
}

/** Numbers the citations and sources of a message's parts. */
export function collectSources(parts: readonly LoosePart[]): MessageSources {
  const byKey = new Map<string, SourceEntry>();
  const entries: SourceEntry[] = [];
  const markers = new Map<number, number[]>();
  const add = (s: Raw, quote?: string): SourceEntry => {
    const key = keyOf(s);
    let e = byKey.get(key);
    if (!e) {
      e = { n: entries.length + 1, quotes: [], count: 0 };
      if (s.url) {
        e.url = s.url;
        const host = hostOf(s.url);
        if (host) e.host = host;
      }
      if (s.title) e.title = s.title;
      byKey.set(key, e);
      entries.push(e);
    }
    if (quote && !e.quotes.includes(quote)) e.quotes.push(quote);
    return e;
  };
  parts.forEach((p, i) => {
    if (p.type !== 'text' || !Array.isArray(p.citations)) return;
    const ns: number[] = [];
    for (const c of p.citations) {
      if (!isRecord(c)) continue;
      const src = isRecord(c.source) ? c.source : {};
      const raw: Raw = {};
      if (typeof src.url === 'string') raw.url = src.url;
      if (typeof src.title === 'string') raw.title = src.title;
      if (!raw.url && !raw.title) continue;
      const e = add(raw, typeof c.citedText === 'string' ? c.citedText : undefined);
      if (!ns.includes(e.n)) ns.push(e.n);
    }
    if (ns.length) markers.set(i, ns);
  });
  for (const p of parts) {
    if (p.type !== 'source-url' && p.type !== 'source-document') continue;
    const raw: Raw = {};
    if (typeof p.url === 'string') raw.url = p.url;
    if (typeof p.title === 'string') raw.title = p.title;
    else if (typeof p.filename === 'string') raw.title = p.filename;
    if (!raw.url && !raw.title) raw.title = String(p.sourceId ?? 'source');
    add(raw).count++;
  }
  return { entries, markers };
}
