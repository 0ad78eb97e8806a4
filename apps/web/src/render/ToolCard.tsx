/**
 * Tool calls. Seed 003's component routing: code-running tools (python_interpreter, run_code, …)
 * get a code panel (the "webide") with their output below it as a terminal; every other tool is a
 * card with its input as JSON and its output as terminal-style text. Status, errors and the
 * input / output are always shown; the card is collapsed once the call is done (seed 001) and opens
 * on a click.
 */
import { memo, useState } from 'react';

import { json } from '../lib/format.ts';
import { isRecord } from '../lib/types.ts';
import { CODE_TOOLS, type ToolView } from './parts.ts';

function status(t: ToolView, live: boolean): { text: string; cls: string } {
  switch (t.state) {
    case 'input-streaming':
      return live ? { text: 'preparing…', cls: 'running' } : { text: 'incomplete', cls: 'error' };
    case 'input-available':
      return live ? { text: 'running…', cls: 'running' } : { text: 'no result', cls: 'muted' };
    case 'output-available':
      return t.preliminary && live ? { text: 'running…', cls: 'running' } : { text: 'done', cls: 'done' };
    case 'output-error':
      return { text: 'error', cls: 'error' };
    case 'output-denied':
      return { text: 'denied', cls: 'error' };
    case 'approval-requested':
      return { text: 'awaiting approval', cls: 'running' };
    default:
      return { text: t.state, cls: 'muted' };
  }
}

/** The source code a code tool was given. */
function codeOf(input: unknown): { code: string; language: string } {
  if (typeof input === 'string') return { code: input, language: 'python' };
  if (isRecord(input)) {
    const code = [input.code, input.source, input.script, input.program, input.command].find((v): v is string => typeof v === 'string');
    const language = typeof input.language === 'string' ? input.language : 'python';
    if (code !== undefined) return { code, language };
  }
  return { code: json(input), language: 'json' };
}

function outputText(output: unknown): string {
  if (isRecord(output)) {
    // Common shapes of execution results.
    const parts = [output.stdout, output.logs, output.output, output.result].filter((v): v is string => typeof v === 'string');
    const err = [output.stderr, output.error].filter((v): v is string => typeof v === 'string');
    if (parts.length || err.length) return [...parts, ...err].join('\n');
  }
  return json(output);
}

function Terminal({ label, text, error }: { label: string; text: string; error?: boolean }) {
  return (
    <div className={`terminal${error ? ' terminal-error' : ''}`} data-testid="terminal">
      <div className="terminal-bar">{label}</div>
      <pre>{text}</pre>
    </div>
  );
}

export const ToolCard = memo(function ToolCard({ tool, live }: { tool: ToolView; live: boolean }) {
  const s = status(tool, live);
  const running = s.cls === 'running';
  const [manual, setManual] = useState<boolean | null>(null);
  const isCode = CODE_TOOLS.has(tool.toolName);
  // Code panels stay open (they are the content); other cards open while running.
  const open = manual ?? (isCode || running || tool.state === 'output-error');
  const hasOutput = tool.state === 'output-available' || tool.state === 'output-error';
  const { code, language } = isCode ? codeOf(tool.input) : { code: '', language: '' };
  return (
    <details
      className={`tool${isCode ? ' code-tool' : ''}`}
      data-testid="tool-card"
      data-tool={tool.toolName}
      data-state={tool.state}
      data-component={isCode ? 'webide' : 'terminal'}
      open={open}
      onToggle={(e) => {
        if (e.currentTarget.open !== open) setManual(e.currentTarget.open);
      }}
    >
      <summary>
        <span className="tool-name">{tool.toolName}</span>
        <span className={`badge ${s.cls}`} data-testid="tool-status">
          {running ? <span className="spinner" aria-hidden /> : null}
          {s.text}
        </span>
        {tool.providerExecuted ? <span className="badge muted">provider</span> : null}
        <span className="tool-id muted">{tool.toolCallId}</span>
      </summary>
      {isCode ? (
        <div className="webide" data-testid="code-panel">
          <div className="webide-bar">{language}</div>
          <pre>
            <code>{code}</code>
          </pre>
        </div>
      ) : (
        <div className="tool-section">
          <div className="tool-label">Input</div>
          <pre className="tool-input">{json(tool.input) || '…'}</pre>
        </div>
      )}
      {hasOutput ? (
        tool.state === 'output-error' ? (
          <Terminal label={`${tool.toolName} · error`} text={tool.errorText ?? json(tool.output)} error />
        ) : (
          <Terminal label={isCode ? 'output' : `$ ${tool.toolName}`} text={outputText(tool.output)} />
        )
      ) : null}
      {tool.state === 'output-denied' ? <div className="inline-error">The tool call was denied.</div> : null}
    </details>
  );
});
