/**
 * Optional bearer-token authentication. With no token configured, every request is anonymous and
 * sees every chat. With tokens, every `/api` request and every WebSocket needs one
 * (`Authorization: Bearer <token>`; a WebSocket may pass `?access_token=` since browsers cannot set
 * headers on it), and each token sees only its own chats: a chat records the *name* of the token
 * that created it (`metadata.owner`), and a chat of another owner answers 404, exactly like a chat
 * that does not exist. Tokens that share a name share chats (rotate a token by adding a new one
 * with the same name). Chats created while authentication was off have no owner and are visible
 * to no token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Chat } from '@switchboard/store';

/** A configured token. */
export interface TokenEntry {
  token: string;
  name: string;
}

/** Who is calling: a token's name, or anonymous (authentication off). */
export type Principal = { name: string } | { anonymous: true };

/** The result of checking a request's credentials. */
export type AuthResult = { ok: true; principal: Principal } | { ok: false; message: string };

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Checks bearer tokens in constant time (per candidate), by their SHA-256. */
export class Authenticator {
  private readonly tokens: { hash: Buffer; name: string }[];

  constructor(tokens: readonly TokenEntry[]) {
    this.tokens = tokens.map((t) => ({ hash: digest(t.token), name: t.name }));
  }

  /** True when tokens are required. */
  get enabled(): boolean {
    return this.tokens.length > 0;
  }

  /** Who `token` is (undefined when it is none of ours). */
  identify(token: string): string | undefined {
    const hash = digest(token);
    let found: string | undefined;
    // Compare against every token, so the time taken says nothing about which one matched.
    for (const t of this.tokens) if (timingSafeEqual(hash, t.hash) && found === undefined) found = t.name;
    return found;
  }

  /** Checks an `Authorization` header value (or a token from elsewhere, `bare`). */
  check(authorization: string | null | undefined, bare?: string | null): AuthResult {
    if (!this.enabled) return { ok: true, principal: { anonymous: true } };
    let token: string | undefined;
    if (authorization) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!m) return { ok: false, message: 'Malformed Authorization header: expected "Bearer <token>"' };
      token = m[1];
    } else if (bare) token = bare;
    if (!token) return { ok: false, message: 'Authentication required: send "Authorization: Bearer <token>"' };
    const name = this.identify(token);
    if (name === undefined) return { ok: false, message: 'Invalid token' };
    return { ok: true, principal: { name } };
  }
}

/** The owner to record on a chat created by `principal` (none when anonymous). */
export function ownerOf(principal: Principal): string | undefined {
  return 'name' in principal ? principal.name : undefined;
}

/** True when `principal` may see `chat`. */
export function canSee(principal: Principal, chat: Chat | undefined): chat is Chat {
  if (!chat) return false;
  if ('anonymous' in principal) return true;
  return chat.metadata?.owner === principal.name;
}

/** A chat as the API shows it: without the owner bookkeeping. */
export function publicChat(chat: Chat): Chat {
  if (!chat.metadata || !('owner' in chat.metadata)) return chat;
  const { owner: _owner, ...metadata } = chat.metadata;
  const out: Chat = { ...chat, metadata };
  if (Object.keys(metadata).length === 0) delete out.metadata;
  return out;
}
