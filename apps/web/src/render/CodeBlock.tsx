/**
 * A block of code: a header with its language and a Copy button, the code highlighted by Shiki once
 * it is complete (highlight.ts, loaded on first use). While it streams it shows as plain text: a
 * grammar re-run on every delta would cost more than it shows.
 */
import { type CSSProperties, memo, useEffect, useState } from 'react';

import { copyText } from './copy.ts';
import { grammarOf, highlight, type Token } from './highlight.ts';

/** A button that copies `text` and says so for a moment. */
export function CopyButton({ text, label = 'Copy', className = '' }: { text: string; label?: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className={`copy-button ${className}`}
      aria-label={label}
      title={label}
      data-testid="copy"
      onClick={async () => setState((await copyText(text)) ? 'copied' : 'failed')}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}

function useTokens(code: string, grammar: string | undefined, ready: boolean): Token[][] | undefined {
  const [tokens, setTokens] = useState<{ code: string; lines: Token[][] }>();
  useEffect(() => {
    if (!ready || !grammar || !code) return;
    let live = true;
    highlight(code, grammar)
      .then((lines) => {
        if (live) setTokens({ code, lines });
      })
      .catch(() => {
        // Highlighting is a nicety: plain text stays.
      });
    return () => {
      live = false;
    };
  }, [code, grammar, ready]);
  return tokens?.code === code ? tokens.lines : undefined;
}

function tokenStyle(t: Token): CSSProperties | undefined {
  if (!t.light && !t.dark && !t.italic) return undefined;
  return { '--shiki-light': t.light, '--shiki-dark': t.dark, ...(t.italic ? { fontStyle: 'italic' } : {}) } as CSSProperties;
}

interface Props {
  code: string;
  /** Fence language or file type (`py`, `python`, `ts`…). */
  lang: string;
  /** Still being written: no highlighting yet. */
  streaming?: boolean;
  /** Shown in the header instead of the language (a file name). */
  title?: string;
}

export const CodeBlock = memo(function CodeBlock({ code, lang, streaming = false, title }: Props) {
  const grammar = grammarOf(lang);
  const lines = useTokens(code, grammar, !streaming);
  return (
    <figure className="code-block" data-testid="code-block" data-lang={lang || 'text'} data-highlighted={lines ? 'true' : 'false'}>
      <figcaption className="code-head">
        <span className="code-lang">{title ?? (lang || 'text')}</span>
        <CopyButton text={code} label={`Copy ${title ?? 'code'}`} />
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre tabIndex={0}>
        <code>
          {lines
            ? lines.map((line, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
                <span key={i} className="line">
                  {line.map((t, j) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: tokens are positional
                    <span key={j} className="tok" style={tokenStyle(t)}>
                      {t.content}
                    </span>
                  ))}
                  {i < lines.length - 1 ? '\n' : null}
                </span>
              ))
            : code}
        </code>
      </pre>
    </figure>
  );
});
