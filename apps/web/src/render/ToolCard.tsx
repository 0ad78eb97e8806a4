/**
 * Tool calls. DeepSearchAgents' component routing (DSAgentRunMessage): code-running tools
 * (python_interpreter, run_code, …) get a code panel (the "webide") with their output below it as a
 * terminal; Anthropic's server code execution shows what it did — the file it wrote or read
 * (`text_editor_code_execution`) and the command with its output (`bash_code_execution`); every
 * other tool is a card with its input as JSON and its output as terminal-style text. Status, errors
 * and the input / output are always there; a finished card is collapsed with a one-line preview of
 * its input, and opens on a click.
 *
 * `footer` is where a card's actions go (the human-in-the-loop approval buttons): shown below the
 * card's content, and the card stays open while it has one.
 */
import { memo, type ReactNode, useState } from 'react';

import { json } from '../lib/format.ts';
import { isRecord } from '../lib/types.ts';
import { CodeBlock } from './CodeBlock.tsx';
import { CODE_TOOLS, FILE_TOOL, SHELL_TOOL, type ToolView } from './parts.ts';

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
    case 'approval-responded':
      // Answered; the run that goes on with the answer settles it (output, or output-denied).
      if (t.approval?.approved === false) return { text: 'denied', cls: 'error' };
      return live ? { text: 'approved, running…', cls: 'running' } : { text: 'approved', cls: 'done' };
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
    const err = [output.stderr, output.error].filter((v): v is string => typeof v === 'string' && v !== '');
    if (parts.length || err.length) return [...parts, ...err].join('\n');
  }
  return json(output);
}

/** One line saying what the call was about, for the collapsed card. */
function previewOf(input: unknown): string {
  if (input === undefined) return '';
  if (isRecord(input)) {
    const main = [input.query, input.command, input.path, input.url, input.code, input.city, input.location].find(
      (v): v is string => typeof v === 'string',
    );
    if (main !== undefined) return main;
  }
  const text = typeof input === 'string' ? input : (JSON.stringify(input) ?? '');
  return text;
}

function Terminal({ label, text, error }: { label: string; text: string; error?: boolean }) {
  return (
    <div className={`terminal${error ? ' terminal-error' : ''}`} data-testid="terminal">
      <div className="terminal-bar">{label}</div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <pre tabIndex={0}>{text}</pre>
    </div>
  );
}

const EXT_LANG: Record<string, string> = { py: 'python', js: 'javascript', ts: 'typescript', sh: 'bash', md: 'markdown', yml: 'yaml' };

/** `text_editor_code_execution`: the file it created, viewed or edited. */
function FileView({ tool }: { tool: ToolView }) {
  const input = isRecord(tool.input) ? tool.input : {};
  const output = isRecord(tool.output) ? tool.output : {};
  const path = typeof input.path === 'string' ? input.path : 'file';
  const ext = path.split('.').pop()?.toLowerCase() ?? '';
  const lang = EXT_LANG[ext] ?? ext;
  const command = typeof input.command === 'string' ? input.command : 'edit';
  const body =
    typeof input.file_text === 'string'
      ? input.file_text
      : typeof output.content === 'string'
        ? output.content
        : typeof input.new_str === 'string'
          ? input.new_str
          : undefined;
  return (
    <div className="tool-section" data-testid="file-view">
      {body !== undefined ? (
        <CodeBlock code={body} lang={lang} title={`${command} ${path}`} />
      ) : (
        <div className="tool-label">{`${command} ${path}`}</div>
      )}
      {typeof input.old_str === 'string' ? <CodeBlock code={input.old_str} lang={lang} title="replaced" /> : null}
      {tool.state === 'output-error' ? <Terminal label="error" text={tool.errorText ?? json(tool.output)} error /> : null}
    </div>
  );
}

/** `bash_code_execution`: the command and what it printed. */
function ShellView({ tool }: { tool: ToolView }) {
  const input = isRecord(tool.input) ? tool.input : {};
  const output = isRecord(tool.output) ? tool.output : {};
  const command = typeof input.command === 'string' ? input.command : json(tool.input);
  const code = typeof output.return_code === 'number' ? output.return_code : undefined;
  const printed = [output.stdout, output.stderr].filter((v): v is string => typeof v === 'string' && v !== '').join('\n');
  const hasOutput = tool.state === 'output-available' || tool.state === 'output-error';
  return (
    <Terminal
      label={code === undefined ? 'shell' : `shell · exit ${code}`}
      text={`$ ${command}\n${hasOutput ? printed || (tool.errorText ?? '') : ''}`}
      error={(code !== undefined && code !== 0) || tool.state === 'output-error'}
    />
  );
}

const denied = (t: ToolView): boolean =>
  t.state === 'output-denied' || (t.state === 'approval-responded' && t.approval?.approved === false);

function Body({ tool, isCode }: { tool: ToolView; isCode: boolean }) {
  if (tool.toolName === FILE_TOOL) return <FileView tool={tool} />;
  if (tool.toolName === SHELL_TOOL) return <ShellView tool={tool} />;
  const hasOutput = tool.state === 'output-available' || tool.state === 'output-error';
  const { code, language } = isCode ? codeOf(tool.input) : { code: '', language: '' };
  return (
    <>
      {isCode ? (
        <div className="webide" data-testid="code-panel">
          <CodeBlock code={code} lang={language} streaming={tool.state === 'input-streaming'} />
        </div>
      ) : (
        <div className="tool-section">
          <div className="tool-label">Input</div>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
          <pre className="tool-input" tabIndex={0}>
            {json(tool.input) || '…'}
          </pre>
        </div>
      )}
      {hasOutput ? (
        tool.state === 'output-error' ? (
          <Terminal label={`${tool.toolName} · error`} text={tool.errorText ?? json(tool.output)} error />
        ) : (
          <Terminal label={isCode ? 'output' : `$ ${tool.toolName}`} text={outputText(tool.output)} />
        )
      ) : null}
      {denied(tool) ? (
        <div className="inline-error" data-testid="tool-denied">
          Denied{tool.approval?.reason ? `: ${tool.approval.reason}` : ''} — the tool did not run.
        </div>
      ) : null}
    </>
  );
}

export const ToolCard = memo(function ToolCard({ tool, live, footer }: { tool: ToolView; live: boolean; footer?: ReactNode }) {
  const s = status(tool, live);
  const running = s.cls === 'running';
  const [manual, setManual] = useState<boolean | null>(null);
  const isCode = CODE_TOOLS.has(tool.toolName);
  const isExecution = isCode || tool.toolName === FILE_TOOL || tool.toolName === SHELL_TOOL;
  // Code panels stay open (they are the content); other cards open while running, failing, asking
  // or denied (what did not happen is worth seeing).
  const open = manual ?? (isExecution || running || tool.state === 'output-error' || denied(tool) || footer !== undefined);
  const preview = open ? '' : previewOf(tool.input);
  return (
    <details
      className={`tool${isCode ? ' code-tool' : ''}`}
      data-testid="tool-card"
      data-tool={tool.toolName}
      data-state={tool.state}
      data-component={isExecution ? 'webide' : 'terminal'}
      open={open}
      onToggle={(e) => {
        if (e.currentTarget.open !== open) setManual(e.currentTarget.open);
      }}
    >
      <summary>
        <span className="chevron" aria-hidden />
        <span className="tool-name">{tool.toolName}</span>
        <span className={`badge ${s.cls}`} data-testid="tool-status">
          {running ? <span className="spinner" aria-hidden /> : null}
          {s.text}
        </span>
        {tool.providerExecuted ? <span className="badge">provider</span> : null}
        {preview ? (
          <span className="tool-preview" data-testid="tool-preview">
            {preview}
          </span>
        ) : null}
      </summary>
      <Body tool={tool} isCode={isCode} />
      {footer ? <div className="tool-footer">{footer}</div> : null}
    </details>
  );
});
