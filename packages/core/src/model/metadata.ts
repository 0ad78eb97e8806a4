/**
 * Helpers on `providerMetadata`: merging it, and finding the opaque encrypted reasoning a provider
 * needs back on the next turn.
 */
import type { ProviderMetadata } from './events.ts';

/** Merges providerMetadata per provider key: `b`'s fields win; undefined when both are. */
export function mergeProviderMetadata(a: ProviderMetadata | undefined, b: ProviderMetadata | undefined): ProviderMetadata | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: ProviderMetadata = { ...a };
  for (const k in b) out[k] = { ...a[k], ...b[k] };
  return out;
}

/**
 * Where each provider keeps an encrypted reasoning artefact (signature, redacted or encrypted content) in a reasoning block's providerMetadata,
 * in the order they are looked up.
 */
export const ENCRYPTED_REASONING_KEYS: readonly (readonly [provider: string, key: string])[] = [
  ['anthropic', 'signature'],
  ['anthropic', 'redactedData'],
  ['openai', 'reasoningEncryptedContent'],
  ['google', 'thoughtSignature'],
];

/** The encrypted reasoning carried in providerMetadata (first non-empty of {@link ENCRYPTED_REASONING_KEYS}). */
export function encryptedReasoningOf(pm: ProviderMetadata | undefined): string | undefined {
  if (!pm) return undefined;
  for (const [provider, key] of ENCRYPTED_REASONING_KEYS) {
    const v = pm[provider]?.[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
