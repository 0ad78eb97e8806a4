/**
 * Reading the conversation a run is given (AI SDK `UIMessage`s, loosely typed): the text of a
 * message, the last user message, and the turns the SDK agents send to a provider (text, tool calls
 * and their answers).
 */
import type { RunMessage } from '../runner/types.ts';

/** The text parts of a message, joined. */
export function messageText(message: RunMessage): string {
  let text = '';
  for (const part of message.parts as readonly { type?: unknown; text?: unknown }[]) {
    if (part.type === 'text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** Text of the last user message, or '' when there is none. */
export function lastUserText(messages: readonly RunMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return messageText(messages[i]);
  return '';
}

/** A tool call of an assistant step that the conversation answered. */
export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The answer to a tool call: its output, an error, or a denial, as the text the model reads. */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  /** The output as it was (the client's JSON), or the error / denial text. */
  output: unknown;
  isError: boolean;
}

/** One turn of the conversation, in the order a provider wants them. */
export type Item =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; calls: ToolCall[] }
  | { role: 'tool'; results: ToolResult[] };

type Part = { type?: unknown; text?: unknown; toolName?: unknown; toolCallId?: unknown; state?: unknown; input?: unknown } & {
  output?: unknown;
  errorText?: unknown;
  providerExecuted?: unknown;
  approval?: { approved?: unknown; reason?: unknown };
};

/** The text a tool result is sent as: strings as they are, anything else as JSON. */
export function resultText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
}

/**
 * The answer an AI SDK tool part carries (the client's output, an error, an approval answered), or
 * undefined when the call is still unanswered (it is then not sent: providers reject a call without
 * its result). These agents have no tools of their own, so an approved call they cannot run says so.
 */
function answerOf(part: Part, toolName: string): Omit<ToolResult, 'toolCallId' | 'toolName'> | undefined {
  const reason = typeof part.approval?.reason === 'string' && part.approval.reason ? `: ${part.approval.reason}` : '';
  switch (part.state) {
    case 'output-available':
      return { output: part.output ?? null, isError: false };
    case 'output-error':
      return { output: typeof part.errorText === 'string' ? part.errorText : 'The tool failed.', isError: true };
    case 'output-denied':
      return { output: `The user denied this tool call${reason}.`, isError: true };
    case 'approval-responded':
      if (part.approval?.approved === false) return { output: `The user denied this tool call${reason}.`, isError: true };
      return { output: `Approved, but ${toolName} did not run: this agent has no such tool.`, isError: true };
    default:
      return undefined;
  }
}

/** The tool name of an AI SDK tool part (`tool-<name>` or `dynamic-tool`), or undefined for other parts. */
function toolNameOf(part: Part): string | undefined {
  if (part.type === 'dynamic-tool') return typeof part.toolName === 'string' ? part.toolName : undefined;
  return typeof part.type === 'string' && part.type.startsWith('tool-') ? part.type.slice(5) : undefined;
}

/**
 * The conversation for a provider: system messages first (joined), then user turns, assistant steps
 * (text and the tool calls the conversation answered; an AI SDK assistant message holds one step per
 * `step-start`) each followed by the answers to its calls (client outputs, errors, denials), with
 * neighbouring text turns of the same role merged and the first turn a user turn. Reasoning, file
 * parts, provider-executed tools and unanswered calls are not sent.
 */
export function toConversation(messages: readonly RunMessage[]): { system: string | undefined; items: Item[] } {
  const system: string[] = [];
  const items: Item[] = [];
  const push = (item: Item) => {
    const last = items.at(-1);
    if (!last && item.role !== 'user') return;
    if (last?.role === 'user' && item.role === 'user') last.text += `\n\n${item.text}`;
    else if (last?.role === 'assistant' && item.role === 'assistant' && last.calls.length === 0) {
      last.text = [last.text, item.text].filter(Boolean).join('\n\n');
      last.calls = item.calls;
    } else items.push(item);
  };
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'user') {
      const text = messageText(m);
      if (text.trim() === '') continue;
      if (m.role === 'system') system.push(text);
      else push({ role: 'user', text });
      continue;
    }
    if (m.role !== 'assistant') continue;
    let step: { text: string; calls: ToolCall[]; results: ToolResult[] } = { text: '', calls: [], results: [] };
    const flush = () => {
      if (step.text.trim() !== '' || step.calls.length > 0) push({ role: 'assistant', text: step.text, calls: step.calls });
      if (step.results.length > 0 && items.at(-1)?.role === 'assistant') push({ role: 'tool', results: step.results });
      step = { text: '', calls: [], results: [] };
    };
    for (const part of m.parts as readonly Part[]) {
      if (part.type === 'step-start') flush();
      else if (part.type === 'text' && typeof part.text === 'string') step.text += part.text;
      else {
        const toolName = toolNameOf(part);
        if (toolName === undefined || typeof part.toolCallId !== 'string' || part.providerExecuted === true) continue;
        const answer = answerOf(part, toolName);
        if (!answer) continue;
        step.calls.push({ toolCallId: part.toolCallId, toolName, input: part.input ?? {} });
        step.results.push({ toolCallId: part.toolCallId, toolName, ...answer });
      }
    }
    flush();
  }
  return { system: system.length ? system.join('\n\n') : undefined, items };
}
