/** Todos, usage, sources, citations, files and the other small blocks of an assistant message. */
import { memo } from 'react';

import { json } from '../lib/format.ts';
import { isRecord, type Todo } from '../lib/types.ts';

const MARK: Record<string, string> = { completed: '☑', in_progress: '◐', cancelled: '☒', pending: '☐' };

function todosOf(data: unknown): Todo[] {
  const list = isRecord(data) && Array.isArray(data.todos) ? data.todos : Array.isArray(data) ? data : [];
  return list.filter((t): t is Todo => isRecord(t) && typeof t.content === 'string');
}

export const Todos = memo(function Todos({ data }: { data: unknown }) {
  const todos = todosOf(data);
  const done = todos.filter((t) => t.status === 'completed').length;
  return (
    <div className="todos" data-testid="todos">
      <div className="todos-head">
        <span>Plan</span>
        <span className="muted">
          {done} of {todos.length} done
        </span>
      </div>
      <ul>
        {todos.map((t, i) => (
          <li key={t.id ?? i} className={`todo ${t.status}`} data-status={t.status}>
            <span className="mark" aria-hidden>
              {MARK[t.status] ?? '☐'}
            </span>
            <span className="todo-text">{t.status === 'in_progress' && t.activeForm ? t.activeForm : t.content}</span>
          </li>
        ))}
      </ul>
    </div>
  );
});

const USAGE_FIELDS: [string, string][] = [
  ['inputTokens', 'in'],
  ['outputTokens', 'out'],
  ['reasoningTokens', 'reasoning'],
  ['cacheReadTokens', 'cache read'],
  ['cacheWriteTokens', 'cache write'],
  ['totalTokens', 'total'],
];

export const Usage = memo(function Usage({ data }: { data: unknown }) {
  if (!isRecord(data)) return null;
  const bits: string[] = [];
  for (const [k, label] of USAGE_FIELDS) if (typeof data[k] === 'number') bits.push(`${(data[k] as number).toLocaleString()} ${label}`);
  if (typeof data.costUsd === 'number') bits.push(`$${data.costUsd.toFixed(4)}`);
  if (typeof data.durationMs === 'number') bits.push(`${(data.durationMs / 1000).toFixed(1)}s`);
  if (!bits.length) return null;
  return (
    <div className="usage muted" data-testid="usage">
      {bits.join(' · ')}
    </div>
  );
});

export interface SourceView {
  id: string;
  url?: string;
  title?: string;
}

export function Sources({ sources }: { sources: SourceView[] }) {
  if (!sources.length) return null;
  return (
    <div className="sources" data-testid="sources">
      <div className="muted">Sources</div>
      <ol>
        {sources.map((s) => (
          <li key={s.id}>
            {s.url ? (
              <a href={s.url} target="_blank" rel="noopener noreferrer nofollow">
                {s.title || s.url}
              </a>
            ) : (
              <span>{s.title || s.id}</span>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

interface CitationLike {
  source?: { url?: string; title?: string; id?: string };
  citedText?: string;
}

export function Citations({ citations }: { citations: unknown[] }) {
  const list = citations.filter((c): c is CitationLike => isRecord(c));
  if (!list.length) return null;
  return (
    <ol className="citations" data-testid="citations">
      {list.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: citations are positional
        <li key={i}>
          {c.source?.url ? (
            <a href={c.source.url} target="_blank" rel="noopener noreferrer nofollow">
              {c.source.title || c.source.url}
            </a>
          ) : (
            <span>{c.source?.title ?? 'source'}</span>
          )}
          {c.citedText ? <q className="muted">{c.citedText}</q> : null}
        </li>
      ))}
    </ol>
  );
}

export function FileBlock({ url, mediaType, filename }: { url: string; mediaType: string; filename?: string }) {
  const safe = /^data:image\/(png|jpeg|gif|webp);/i.test(url) || url.startsWith('/');
  return (
    <div className="file" data-testid="file">
      {safe && mediaType.startsWith('image') ? (
        <img src={url} alt={filename ?? 'image'} className="file-image" />
      ) : (
        <a href={url} download={filename} rel="noopener noreferrer nofollow">
          📎 {filename ?? mediaType}
        </a>
      )}
    </div>
  );
}

/** Anything the UI has no view for: shown as JSON, so nothing the stream carried is hidden. */
export function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <details className="json-block" data-testid="json-block">
      <summary className="muted">{label}</summary>
      <pre>{json(value)}</pre>
    </details>
  );
}

export function InlineError({ title = 'Error', text }: { title?: string; text: string }) {
  return (
    <div className="inline-error" role="alert" data-testid="inline-error">
      <strong>{title}</strong> {text}
    </div>
  );
}
