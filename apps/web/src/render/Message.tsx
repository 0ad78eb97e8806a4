/**
 * One message. An assistant message's parts render in the order they arrived: step boundaries,
 * reasoning, text, tool calls, todos, data, files; sources and usage collect at the end, errors
 * inline. Consecutive text parts are one flow of prose (a provider that cites sends one text part
 * per cited span): they render as one markdown document with inline citation markers, numbered like
 * the message's one source list (citations.ts).
 *
 * Performance and correctness: `useChat` may hand over the live message object it keeps mutating
 * (its first render of a new message), so nothing here compares part objects with the ones of the
 * previous render. Text runs are compared as strings, other parts through a shallow copy made at
 * render time; only what changed re-renders, and Markdown re-parses only its tail.
 */
import { memo, type ReactNode, useCallback, useMemo } from 'react';

import { json } from '../lib/format.ts';
import { type ChatMessage, isRecord, type LoosePart } from '../lib/types.ts';
import { ApprovalButtons, useAnswerApproval } from './Approval.tsx';
import { FileBlock, InlineError, JsonBlock, SourceList, Todos, Usage } from './blocks.tsx';
import { ToolOutputContext } from './Chart.tsx';
import { CopyButton } from './CodeBlock.tsx';
import { collectSources } from './citations.ts';
import { CITE_CLOSE, CITE_OPEN } from './markdown.ts';
import { reasoningMeta, type ToolView, toolOf } from './parts.ts';
import { Reasoning } from './Reasoning.tsx';
import { TextRun } from './TextRun.tsx';
import { ToolCard } from './ToolCard.tsx';
import { UserMessage } from './UserMessage.tsx';

function shallowSame(a: LoosePart, b: LoosePart): boolean {
  if (a === b) return true;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

interface PartProps {
  /** A copy made for this render (never the object the chat mutates). */
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
        if (tool) return <ToolPart tool={tool} live={live} />;
        if (part.type.startsWith('data-')) return <JsonBlock label={part.type.slice(5)} value={part.data} />;
        return <JsonBlock label={part.type} value={part} />;
      }
    }
  },
  (a, b) => a.live === b.live && a.hasNewerBlock === b.hasNewerBlock && a.step === b.step && shallowSame(a.part, b.part),
);

/** A tool card; one waiting for approval gets Approve / Deny when the chat can answer. */
function ToolPart({ tool, live }: { tool: ToolView; live: boolean }) {
  const answer = useAnswerApproval();
  const asking = tool.state === 'approval-requested' && tool.approval && answer;
  return (
    <ToolCard
      tool={tool}
      live={live}
      {...(asking && tool.approval
        ? {
            footer: (
              <ApprovalButtons
                approvalId={tool.approval.id}
                toolName={tool.toolName}
                {...(tool.approval.requestReason ? { reason: tool.approval.requestReason } : {})}
                answer={answer}
              />
            ),
          }
        : {})}
    />
  );
}

/** Parts shown elsewhere (sources, usage at the end) or not at all: they do not break a text run. */
const OUT_OF_FLOW = new Set(['source-url', 'source-document', 'data-usage', 'data-status']);

type Item = { kind: 'text'; key: number; text: string; streaming: boolean } | { kind: 'part'; key: number; part: LoosePart; index: number };

/** Parts → render items: consecutive text parts joined into one run, citation markers appended. */
function itemsOf(parts: readonly LoosePart[], markers: Map<number, number[]>, live: boolean, multiStep: boolean): Item[] {
  const items: Item[] = [];
  let run: Extract<Item, { kind: 'text' }> | undefined;
  parts.forEach((p, i) => {
    if (p.type === 'text') {
      const marks =
        markers
          .get(i)
          ?.map((n) => `${CITE_OPEN}${n}${CITE_CLOSE}`)
          .join('') ?? '';
      const text = String(p.text ?? '') + marks;
      if (run) {
        run.text += text;
        run.streaming ||= live && p.state === 'streaming';
      } else {
        run = { kind: 'text', key: i, text, streaming: live && p.state === 'streaming' };
        items.push(run);
      }
      return;
    }
    if (OUT_OF_FLOW.has(p.type) || (p.type === 'step-start' && !multiStep)) return;
    run = undefined;
    // A copy: the chat may mutate the object it gave us (see the module comment).
    items.push({ kind: 'part', key: i, part: { ...p }, index: i });
  });
  return items;
}

function errorOf(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return undefined;
  const e = metadata.error ?? (isRecord(metadata.switchboard) ? metadata.switchboard.error : undefined);
  if (typeof e === 'string') return e;
  if (isRecord(e) && typeof e.message === 'string') return e.message;
  return undefined;
}

/** True when the stored message says its run was stopped (`metadata.switchboard.status`). */
function stoppedIn(metadata: unknown): boolean {
  return isRecord(metadata) && isRecord(metadata.switchboard) && metadata.switchboard.status === 'aborted';
}

/** Plain text of a message (Copy). */
export function textOf(message: ChatMessage): string {
  return (message.parts as unknown as LoosePart[])
    .map((p) => (p.type === 'text' ? String(p.text ?? '') : ''))
    .join('')
    .trim();
}

/** What the chat lets the reader do with a message. */
export interface MessageActions {
  /** Send the failed request again. */
  onRetry?: () => void;
  /** Answer this (assistant) message again. */
  onRegenerate?: (messageId: string) => void;
  /** Replace this (user) message and answer it again. */
  onEdit?: (messageId: string, text: string) => void;
}

interface MessageProps {
  message: ChatMessage;
  live: boolean;
  /** An error the chat reported for this message (stream error, HTTP error). */
  error?: string;
  /** A transient status line (data-status) while it streams. */
  status?: string;
  /** The reader stopped this answer. */
  stopped?: boolean;
  onInspect?: (messageId: string) => void;
  actions?: MessageActions;
}

function Actions({
  message,
  onInspect,
  onRegenerate,
}: {
  message: ChatMessage;
  onInspect?: (id: string) => void;
  onRegenerate?: (id: string) => void;
}) {
  const text = textOf(message);
  return (
    <span className="msg-actions">
      {text ? <CopyButton text={text} label="Copy message" className="link-button" /> : null}
      {onRegenerate ? (
        <button type="button" className="link-button" onClick={() => onRegenerate(message.id)} data-testid="regenerate">
          Regenerate
        </button>
      ) : null}
      {onInspect ? (
        <button type="button" className="link-button" onClick={() => onInspect(message.id)} data-testid="inspect-message">
          Inspect
        </button>
      ) : null}
    </span>
  );
}

export const MessageView = memo(function MessageView({ message, live, error, status, stopped, onInspect, actions }: MessageProps) {
  const parts = message.parts as unknown as LoosePart[];
  const idPrefix = `src-${message.id}`;

  // Read from the parts as they are now: `message` may be the object the chat keeps mutating.
  const sources = collectSources(parts);
  let lastReasoning = -1;
  let steps = 0;
  let usage: unknown;
  const tools = new Map<string, unknown>();
  parts.forEach((p, i) => {
    if (p.type === 'reasoning') lastReasoning = i;
    else if (p.type === 'step-start') steps++;
    else if (p.type === 'data-usage') usage = p.data;
    else if (typeof p.toolCallId === 'string' && p.output !== undefined) tools.set(p.toolCallId, p.output);
  });
  const items = itemsOf(parts, sources.markers, live, steps > 1);
  const toolKey = [...tools.keys()].join('\n');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the outputs change only with the set of finished tool calls
  const toolOutput = useCallback((id: string) => tools.get(id), [toolKey]);
  const context = useMemo(() => ({ idPrefix, entries: sources.entries }), [idPrefix, sources.entries]);

  if (message.role !== 'assistant') return <UserMessage message={message} {...(actions?.onEdit ? { onEdit: actions.onEdit } : {})} />;

  let step = 0;
  const storedError = errorOf(message.metadata);
  const wasStopped = stopped || stoppedIn(message.metadata);
  return (
    <article
      className="msg assistant"
      data-testid="message"
      data-role="assistant"
      data-message-id={message.id}
      data-live={live}
      aria-label="Assistant message"
    >
      <ToolOutputContext.Provider value={toolOutput}>
        {items.map((item) => {
          if (item.kind === 'text') return <TextRun key={item.key} text={item.text} streaming={item.streaming} sources={context} />;
          const p = item.part;
          const stepNo = p.type === 'step-start' ? ++step : undefined;
          return (
            <Part
              key={item.key}
              part={p}
              live={live}
              hasNewerBlock={p.type === 'reasoning' && item.index < lastReasoning}
              {...(stepNo !== undefined ? { step: stepNo } : {})}
            />
          );
        })}
      </ToolOutputContext.Provider>
      {live && status ? <div className="status-line muted">{status}</div> : null}
      {live && parts.length === 0 ? <div className="status-line muted">Waiting for the agent…</div> : null}
      <SourceList entries={sources.entries} idPrefix={idPrefix} />
      {storedError && storedError !== error ? <InlineError text={storedError} /> : null}
      {error ? (
        <InlineError text={error}>
          {actions?.onRetry ? (
            <button type="button" onClick={actions.onRetry} data-testid="retry">
              Retry
            </button>
          ) : null}
        </InlineError>
      ) : null}
      {wasStopped && !live ? (
        <div className="stopped muted" data-testid="stopped">
          Stopped
        </div>
      ) : null}
      {live ? null : (
        <div className="msg-foot">
          {usage !== undefined ? <Usage data={usage} /> : <span />}
          <Actions
            message={message}
            {...(onInspect ? { onInspect } : {})}
            {...(actions?.onRegenerate ? { onRegenerate: actions.onRegenerate } : {})}
          />
        </div>
      )}
    </article>
  );
});

/** A failed request with no assistant message to hang it on: the error and Retry after the user's message. */
export function RequestError({ error, onRetry, children }: { error: string; onRetry?: () => void; children?: ReactNode }) {
  return (
    <div className="msg assistant">
      <InlineError text={error}>
        {onRetry ? (
          <button type="button" onClick={onRetry} data-testid="retry">
            Retry
          </button>
        ) : null}
        {children}
      </InlineError>
    </div>
  );
}
