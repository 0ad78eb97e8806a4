/**
 * A regenerate: the client cut its conversation at a question (the last user message it sends) and
 * asks for a new answer — the AI SDK says so (`trigger: 'regenerate-message'`), an AG-UI client just
 * posts the conversation without the old answer. Everything the store holds after that question — the
 * old answer, and whatever followed it — is superseded: left out of the conversation the agent gets
 * and, once the new run has started, out of history (the old runs and events stay for audit; see the
 * store's `supersedeMessages`). Works whether the request carries the whole conversation or only the
 * newest message.
 */
import type { Store } from '@switchboard/store';

import type { RunMessage } from '../runner/types.ts';

/** The ids of the stored messages after the question a regenerate request ends with (none for other requests). */
export async function regeneratedIds(
  store: Store,
  chatId: string,
  trigger: string | undefined,
  messages: readonly RunMessage[],
): Promise<Set<string>> {
  const question = messages.at(-1);
  if (trigger !== 'regenerate-message' || question?.role !== 'user') return new Set();
  const stored = await store.listMessages(chatId);
  const at = stored.findIndex((m) => m.id === question.id);
  return new Set(at === -1 ? [] : stored.slice(at + 1).map((m) => m.id));
}
