/**
 * Streaming-safe markdown: the text is split into finished blocks and a tail (split.ts); each block
 * is rendered once (marked + DOMPurify, markdown.ts) and memoized, so a delta re-parses only the
 * tail. While the tail streams, `remend` closes what is still open (`**bold` shows bold, not
 * asterisks). Chart placeholders `<<{...}>>` inside a block become SVG charts; fenced code becomes a
 * CodeBlock (highlighting, language, copy).
 */
import { createContext, memo, useContext, useMemo, useRef } from 'react';
import remend from 'remend';

import { Chart, PendingChart } from './Chart.tsx';
import { CodeBlock } from './CodeBlock.tsx';
import { splitPlaceholders } from './chart-spec.ts';
import { renderPieces } from './markdown.ts';
import { type SplitState, splitMarkdown, tailOf } from './split.ts';

/** Id prefix of the message's source list: citation markers link to `#<prefix>-<n>`. */
export const SourcesContext = createContext<string | undefined>(undefined);

const REMEND = { images: false, linkMode: 'text-only', katex: false, inlineKatex: false } as const;

const Html = memo(function Html({ text, streaming }: { text: string; streaming: boolean }) {
  const sources = useContext(SourcesContext);
  const pieces = useMemo(() => renderPieces(streaming ? remend(text, REMEND) : text, sources), [text, streaming, sources]);
  return (
    <>
      {pieces.map((p, i) =>
        p.kind === 'code' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one block are positional
          <CodeBlock key={i} code={p.code} lang={p.lang} streaming={streaming} />
        ) : (
          // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify in renderPieces; raw HTML in agent output is escaped before that.
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <div key={i} className="md-block" dangerouslySetInnerHTML={{ __html: p.html }} />
        ),
      )}
    </>
  );
});

const Block = memo(function Block({ text, streaming }: { text: string; streaming: boolean }) {
  const segments = useMemo(() => splitPlaceholders(text, streaming), [text, streaming]);
  if (segments.length === 1 && segments[0].kind === 'text') return <Html text={segments[0].text} streaming={streaming} />;
  return (
    <>
      {segments.map((s, i) =>
        s.kind === 'text' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments only grow at the end
          <Html key={i} text={s.text} streaming={streaming} />
        ) : s.kind === 'chart' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <Chart key={i} json={s.json} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <PendingChart key={i} />
        ),
      )}
    </>
  );
});

/** Finished blocks are grouped, so a render touches O(blocks / GROUP + GROUP) elements, not O(blocks). */
const GROUP = 32;

const Group = memo(
  function Group({ blocks, from }: { blocks: string[]; from: number; to: number; gen: number }) {
    const out = [];
    for (let i = from; i < Math.min(blocks.length, from + GROUP); i++) out.push(<Block key={i} text={blocks[i]} streaming={false} />);
    return <>{out}</>;
  },
  // A group is done once full; blocks never change once finished, so the count is its identity.
  (a, b) => a.from === b.from && a.to === b.to && a.gen === b.gen,
);

/** Markdown text that may still be streaming. */
export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const split = useRef<SplitState | undefined>(undefined);
  const state = useMemo(() => {
    const next = splitMarkdown(split.current, text);
    split.current = next;
    return next;
  }, [text]);
  const tail = tailOf(state);
  const groups: number[] = [];
  for (let from = 0; from < state.blocks.length; from += GROUP) groups.push(from);
  return (
    <div className="md">
      {groups.map((from) => (
        <Group key={from} blocks={state.blocks} from={from} to={Math.min(state.blocks.length, from + GROUP)} gen={state.gen} />
      ))}
      {tail ? <Block key={state.blocks.length} text={tail} streaming={streaming} /> : null}
    </div>
  );
});
