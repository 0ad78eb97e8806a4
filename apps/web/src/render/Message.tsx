/**
 * One message. An assistant message's parts render in order (seed 001: content blocks keep their
 * order): step boundaries, reasoning, text, tool calls, todos, data, files; sources and usage
 * collect at the end, errors inline.
 *
 * Performance: while a message streams, `useChat` hands over a new message object per update whose
 * parts are shallow copies; `Part` compares its part field by field, so only the parts that changed
 * re-render (in practice the one text part being written), and Markdown re-parses only its tail.
 */
import { memo, useCallback, useMemo } from 'react';

import { json } from '../lib/format.ts';
import { type ChatMessage, isRecord, type LoosePart } from '../lib/types.ts';
import { Citations, FileBlock, InlineError, JsonBlock, Sources, type SourceView, Todos, Usage } from './blocks.tsx';
import { ToolOutputContext } from './Chart.tsx';
import { Markdown } from './Markdown.tsx';
import { reasoningMeta, toolOf } from './parts.ts';
import { Reasoning } from './Reasoning.tsx';
import { ToolCard } from './ToolCard.tsx';

function shallowSame(a: LoosePart, b: LoosePart): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

interface PartProps {
  part: LoosePart;
  /** The message is still streaming. */
  live: boolean;
  hasNewerBlock: boolean;
  /** 1-based step number for a step-start part, when the message has several steps. */
  step?: number;
}

const Part = memo(
  function Part({ part, live, hasNewerBlock, step }: PartProps) {
    const streaming = live && part.state === 'streaming';
    switch (part.type) {
      case 'text': {
        const text = String(part.text ?? '');
        const citations = Array.isArray(part.citations) ? part.citations : undefined;
        return (
          <div className="text-part" data-testid="text-part">
            <Markdown text={text} streaming={streaming} />
            {citations ? <Citations citations={citations} /> : null}
          </div>
        );
      }
      case 'reasoning': {
        const { variant, durationMs } = reasoningMeta(part);
        return (
          <Reasoning
            text={String(part.text ?? '')}
            variant={variant}
            live={streaming}
            hasNewerBlock={hasNewerBlock}
            {...(durationMs !== undefined ? { storedMs: durationMs } : {})}
          />
        );
      }
      case 'step-start':
        return step ? (
          <div className="step" data-testid="step">
            <span>Step {step}</span>
            {typeof part.stepName === 'string' ? <span className="muted"> · {part.stepName}</span> : null}
          </div>
        ) : null;
      case 'data-todos':
        return <Todos data={part.data} />;
      case 'data-usage':
      case 'source-url':
      case 'source-document':
        return null; // collected at the end of the message
      case 'file':
        return (
          <FileBlock
            url={String(part.url ?? '')}
            mediaType={String(part.mediaType ?? '')}
            {...(typeof part.filename === 'string' ? { filename: part.filename } : {})}
          />
        );
      case 'data-error': {
        const d = part.data;
        const text = isRecord(d) && typeof d.message === 'string' ? d.message : json(d);
        return <InlineError text={text} />;
      }
      case 'data-subagent': {
        const d = isRecord(part.data) ? part.data : {};
        return (
          <div className="subagent muted" data-testid="subagent">
            ↳ subagent {String(d.name ?? part.id ?? '')} {d.event === 'subagent-finish' ? 'finished' : 'started'}
            {typeof d.task === 'string' ? `: ${d.task}` : ''}
          </div>
        );
      }
      default: {
        const tool = toolOf(part);
        if (tool) return <ToolCard tool={tool} live={live} />;
        if (part.type.startsWith('data-')) return <JsonBlock label={part.type.slice(5)} value={part.data} />;
        return <JsonBlock label={part.type} value={part} />;
      }
    }
  },
  (a, b) => a.live === b.live && a.hasNewerBlock === b.hasNewerBlock && a.step === b.step && shallowSame(a.part, b.part),
);

function errorOf(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return undefined;
  const e = metadata.error ?? (isRecord(metadata.switchboard) ? metadata.switchboard.error : undefined);
  if (typeof e === 'string') return e;
  if (isRecord(e) && typeof e.message === 'string') return e.message;
  return undefined;
}

interface MessageProps {
  message: ChatMessage;
  live: boolean;
  /** An error the chat reported for this message (stream error, HTTP error). */
  error?: string;
  /** A transient status line (data-status) while it streams. */
  status?: string;
  onInspect?: (messageId: string) => void;
}

export const MessageView = memo(function MessageView({ message, live, error, status, onInspect }: MessageProps) {
  const parts = message.parts as unknown as LoosePart[];
  const inspect = useCallback(() => onInspect?.(message.id), [onInspect, message.id]);

  const summary = useMemo(() => {
    let lastReasoning = -1;
    let steps = 0;
    const sources: SourceView[] = [];
    let usage: unknown;
    const tools = new Map<string, unknown>();
    parts.forEach((p, i) => {
      if (p.type === 'reasoning') lastReasoning = i;
      else if (p.type === 'step-start') steps++;
      else if (p.type === 'data-usage') usage = p.data;
      else if (p.type === 'source-url' || p.type === 'source-document')
        sources.push({
          id: String(p.sourceId ?? i),
          ...(typeof p.url === 'string' ? { url: p.url } : {}),
          ...(typeof p.title === 'string' ? { title: p.title } : {}),
        });
      else if (typeof p.toolCallId === 'string' && p.output !== undefined) tools.set(p.toolCallId, p.output);
    });
    return { lastReasoning, steps, sources, usage, tools };
  }, [parts]);

  const toolOutput = useCallback((id: string) => summary.tools.get(id), [summary.tools]);

  if (message.role !== 'assistant') {
    const text = parts.map((p) => (p.type === 'text' ? String(p.text ?? '') : '')).join('');
    return (
      <div className={`msg ${message.role}`} data-testid="message" data-role={message.role}>
        <div className="user-text">{text}</div>
      </div>
    );
  }

  let step = 0;
  const storedError = errorOf(message.metadata);
  return (
    <div className="msg assistant" data-testid="message" data-role="assistant" data-message-id={message.id} data-live={live}>
      <ToolOutputContext.Provider value={toolOutput}>
        {parts.map((p, i) => {
          const stepNo = p.type === 'step-start' ? ++step : undefined;
          return (
            <Part
              // biome-ignore lint/suspicious/noArrayIndexKey: parts are append-only (data parts update in place)
              key={i}
              part={p}
              live={live}
              hasNewerBlock={p.type === 'reasoning' && i < summary.lastReasoning}
              {...(stepNo !== undefined && summary.steps > 1 ? { step: stepNo } : {})}
            />
          );
        })}
      </ToolOutputContext.Provider>
      {live && status ? <div className="status-line muted">{status}</div> : null}
      {live && parts.length === 0 ? <div className="status-line muted">Waiting for the agent…</div> : null}
      <Sources sources={summary.sources} />
      {storedError && storedError !== error ? <InlineError text={storedError} /> : null}
      {error ? <InlineError text={error} /> : null}
      <div className="msg-foot">
        {summary.usage !== undefined ? <Usage data={summary.usage} /> : <span />}
        {onInspect ? (
          <button type="button" className="link-button" onClick={inspect} data-testid="inspect-message">
            Inspect
          </button>
        ) : null}
      </div>
    </div>
  );
});
