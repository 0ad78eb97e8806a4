/**
 * Message ids as a chat sees them. The store keys messages by id across all chats, but a client's id
 * only has to be unique in its own chat: a message whose id another chat already holds is stored
 * under a chat-scoped alias, `<id>\u001f<chatId>`, and every read of the chat shows it as `<id>`. So a
 * client can never tell from its own chat that an id exists in another one.
 *
 * U+001F is a control character, which no client id may contain (core's `idProblem`), so an alias
 * never equals an id a client can send.
 */
import { StoreError } from './errors.ts';
import type { PersistedMessage } from './projection.ts';

const SCOPE = '\u001f';

/** The alias a message the chat `chatId` calls `id` is stored under when another chat holds `id`. */
export function scopedId(id: string, chatId: string): string {
  return `${id}${SCOPE}${chatId}`;
}

/** The id the chat `chatId` shows for a message stored under `storedId` (its alias suffix removed). */
export function shownId(storedId: string, chatId: string): string {
  const suffix = `${SCOPE}${chatId}`;
  return storedId.endsWith(suffix) ? storedId.slice(0, -suffix.length) : storedId;
}

/** A stored message as its chat shows it. */
export function shownMessage<M extends PersistedMessage>(m: M): M {
  const id = shownId(m.id, m.chatId);
  return id === m.id ? m : { ...m, id };
}

/** A run row with its message ids as its chat shows them. */
export function shownRun<R extends { chatId: string; messageId?: string; userMessageId?: string }>(run: R): R {
  const out = { ...run };
  if (out.messageId !== undefined) out.messageId = shownId(out.messageId, out.chatId);
  if (out.userMessageId !== undefined) out.userMessageId = shownId(out.userMessageId, out.chatId);
  return out;
}

/** Reads the stored messages with these stored ids (those that exist, in any order): one read. */
export type MessageLookup = (storedIds: readonly string[]) => Promise<PersistedMessage[]>;

/** The chat's own message under its alias and under the plain id (one read of both). */
async function both(get: MessageLookup, id: string, chatId: string) {
  const alias = scopedId(id, chatId);
  const found = await get([alias, id]);
  return { alias, scoped: found.find((m) => m.id === alias), plain: found.find((m) => m.id === id) };
}

/**
 * Where the chat's message named `id` is: `held`, the chat's stored message with that id (the alias
 * first, then the plain id when it is the chat's); else `free`, the stored id a new message of the
 * chat named `id` gets (the plain id when no chat holds it, else the alias).
 */
export async function locateMessage(
  get: MessageLookup,
  id: string,
  chatId: string,
): Promise<{ held: PersistedMessage; free?: undefined } | { held?: undefined; free: string }> {
  const { alias, scoped, plain } = await both(get, id, chatId);
  if (scoped && scoped.chatId === chatId) return { held: scoped };
  if (plain && plain.chatId === chatId) return { held: plain };
  if (!plain) return { free: id };
  // Only a caller of the store that wrote such an id itself can get here (clients cannot send U+001F).
  if (scoped) throw new StoreError('conflict', `message ${JSON.stringify(alias)} belongs to chat ${scoped.chatId}`);
  return { free: alias };
}

/** The chat's stored message named `id`, if it has one. */
export async function messageInChat(get: MessageLookup, id: string, chatId: string): Promise<PersistedMessage | undefined> {
  const { scoped, plain } = await both(get, id, chatId);
  if (scoped?.chatId === chatId) return scoped;
  return plain?.chatId === chatId ? plain : undefined;
}
