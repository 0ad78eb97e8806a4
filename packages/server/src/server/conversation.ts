/**
 * The conversation an agent answers. The AI SDK's persistence pattern (`prepareSendMessagesRequest`
 * sending only the newest message, the rest kept by the server) leaves the earlier turns in the store:
 * when a request's messages do not start with the chat's stored first message, the stored history
 * (finished messages only) comes first, without the messages the request carries itself. A request
 * that starts with the stored first message is the whole conversation as the client has it (an edit
 * may have cut it short) and is taken as it is.
 */
import { loadHistory, type Store } from '@switchboard/store';

import type { RunMessage } from '../runner/types.ts';

/** The request's messages, after the chat's stored history when the request left it out. */
export async function conversationOf(
  store: Store,
  chatId: string,
  messages: readonly RunMessage[],
  namespace: string,
): Promise<readonly RunMessage[]> {
  const stored = await loadHistory(store, chatId, 'ai-sdk', { namespace, includePending: false, metadata: false });
  if (stored.length === 0 || messages[0]?.id === stored[0].id) return messages;
  const sent = new Set(messages.map((m) => m.id));
  return [...(stored.filter((m) => !sent.has(m.id)) as RunMessage[]), ...messages];
}
