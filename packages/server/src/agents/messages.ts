/**
 * Reading the conversation a run is given (AI SDK `UIMessage`s, loosely typed): the text of a
 * message, the last user message, and the plain turns the SDK agents send to a provider.
 */
import type { RunMessage } from '../runner/types.ts';

/** A conversation turn reduced to its text. */
export interface Turn {
  role: 'system' | 'user' | 'assistant';
  text: string;
}

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

/**
 * The conversation as text turns: system messages first (joined), then user / assistant turns with
 * neighbours of the same role merged (providers want them alternating), empty ones dropped and the
 * first turn a user turn. Reasoning, tool and file parts are not sent.
 */
export function toTurns(messages: readonly RunMessage[]): { system: string | undefined; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  for (const m of messages) {
    const text = messageText(m);
    if (text.trim() === '') continue;
    if (m.role === 'system') {
      system.push(text);
      continue;
    }
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const last = turns.at(-1);
    if (last?.role === m.role) last.text += `\n\n${text}`;
    else if (last || m.role === 'user') turns.push({ role: m.role, text });
  }
  return { system: system.length ? system.join('\n\n') : undefined, turns };
}
