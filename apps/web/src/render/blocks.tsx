/** Todos, usage, sources, files and the other small blocks of an assistant message. */
import { memo, type ReactNode } from 'react';

import { json } from '../lib/format.ts';
import { isRecord, type Todo } from '../lib/types.ts';
import type { SourceEntry } from './citations.ts';

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
  // A zero says nothing ("0 cache read"): only counts that happened.
  for (const [k, label] of USAGE_FIELDS)
    if (typeof data[k] === 'number' && data[k] !== 0) bits.push(`${(data[k] as number).toLocaleString()} ${label}`);
  if (typeof data.costUsd === 'number') bits.push(`$${data.costUsd.toFixed(4)}`);
  if (typeof data.durationMs === 'number') bits.push(`${(data.durationMs / 1000).toFixed(1)}s`);
  if (!bits.length) return null;
  return (
    <div className="usage muted" data-testid="usage">
      {bits.join(' · ')}
    </div>
  );
});

/** The message's one numbered source list; citation marker n links to entry n (`#<idPrefix>-<n>`). */
export function SourceList({ entries, idPrefix }: { entries: readonly SourceEntry[]; idPrefix: string }) {
  if (!entries.length) return null;
  return (
    <section className="sources" data-testid="sources" aria-label="Sources">
      <h3 className="sources-head">Sources</h3>
      <ol>
        {entries.map((s) => (
          <li key={s.n} id={`${idPrefix}-${s.n}`} value={s.n} tabIndex={-1} data-source={s.n}>
            {s.url ? (
              <a href={s.url} target="_blank" rel="noopener noreferrer nofollow">
                {s.title || s.host || s.url}
              </a>
            ) : (
              <span>{s.title}</span>
            )}
            {s.host && s.title && s.title !== s.host ? <span className="muted small"> · {s.host}</span> : null}
            {s.count > 1 ? <span className="muted small"> · {s.count} results</span> : null}
          </li>
        ))}
      </ol>
    </section>
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
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre tabIndex={0}>{json(value)}</pre>
    </details>
  );
}

/** An error on a message; `children` are its actions (Retry). */
export function InlineError({ title = 'Error', text, children }: { title?: string; text: string; children?: ReactNode }) {
  return (
    <div className="inline-error" role="alert" data-testid="inline-error">
      <strong>{title}</strong> <span className="error-text">{text}</span>
      {children ? <span className="error-actions">{children}</span> : null}
    </div>
  );
}
