/** Reading AI SDK message parts: the reasoning variant and its stored duration, tool calls. */
import { isRecord, type LoosePart, type Variant } from '../lib/types.ts';

/** The reasoning variant and stored duration, from providerMetadata (`switchboard`, or any namespace that has them). */
export function reasoningMeta(part: LoosePart): { variant: Variant; durationMs?: number } {
  const pm = part.providerMetadata;
  let variant: Variant = 'thinking';
  let durationMs: number | undefined;
  if (isRecord(pm)) {
    const order = ['switchboard', ...Object.keys(pm).filter((k) => k !== 'switchboard')];
    for (const k of order) {
      const v = pm[k];
      if (!isRecord(v)) continue;
      if (v.variant === 'processing' || v.variant === 'thinking') {
        variant = v.variant;
        if (typeof v.durationMs === 'number') durationMs = v.durationMs;
        break;
      }
    }
  }
  return durationMs === undefined ? { variant } : { variant, durationMs };
}

export const CODE_TOOLS = new Set([
  'python_interpreter',
  'run_code',
  'code_interpreter',
  'execute_code',
  'python',
  'run_python',
  'code_execution',
]);

/** Anthropic's server code-execution tools: a file editor and a shell, shown as a file and a terminal. */
export const FILE_TOOL = 'text_editor_code_execution';
export const SHELL_TOOL = 'bash_code_execution';

export interface ToolView {
  toolCallId: string;
  toolName: string;
  state: string;
  input: unknown;
  output: unknown;
  errorText?: string;
  preliminary?: boolean;
  providerExecuted?: boolean;
  /**
   * The approval the call waits for or got (`approval-requested` / `approval-responded` /
   * `output-denied`): why it was asked (`requestReason`), the answer and its `reason`.
   */
  approval?: { id: string; requestReason?: string; approved?: boolean; reason?: string };
}

/** A tool part's `approval`, in the AI SDK's shape `{ id, requestReason?, approved?, reason? }`. */
function approvalOf(v: unknown): ToolView['approval'] {
  if (!isRecord(v) || typeof v.id !== 'string') return undefined;
  return {
    id: v.id,
    ...(typeof v.requestReason === 'string' ? { requestReason: v.requestReason } : {}),
    ...(typeof v.approved === 'boolean' ? { approved: v.approved } : {}),
    ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
  };
}

/** The tool call a part describes (`tool-<name>` or `dynamic-tool`), or undefined. */
export function toolOf(part: LoosePart): ToolView | undefined {
  if (part.type !== 'dynamic-tool' && !part.type.startsWith('tool-')) return undefined;
  const toolName = part.type === 'dynamic-tool' ? String(part.toolName ?? 'tool') : part.type.slice(5);
  return {
    toolCallId: String(part.toolCallId ?? ''),
    toolName,
    state: String(part.state ?? 'input-available'),
    input: part.input ?? part.rawInput,
    output: part.output,
    ...(typeof part.errorText === 'string' ? { errorText: part.errorText } : {}),
    ...(part.preliminary === true ? { preliminary: true } : {}),
    ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
    ...(approvalOf(part.approval) ? { approval: approvalOf(part.approval) } : {}),
  };
}
