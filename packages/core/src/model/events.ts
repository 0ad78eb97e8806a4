/**
 * TypeScript types of the canonical event model, inferred from the zod schemas in `schema.ts`.
 * Type-only imports: using these types never loads zod.
 */
import type { z } from 'zod';
import type {
  canonicalEventSchema,
  citationSchema,
  finishReasonSchema,
  locationSchema,
  providerMetadataSchema,
  reasoningVariantSchema,
  todoSchema,
  usageSchema,
} from './schema.ts';

/** Any canonical event. Discriminated on `type`. */
export type CanonicalEvent = z.infer<typeof canonicalEventSchema>;
/** The `type` of a canonical event. */
export type CanonicalEventType = CanonicalEvent['type'];
/** The canonical event with the given `type`. */
export type EventOf<T extends CanonicalEventType> = Extract<CanonicalEvent, { type: T }>;
/** Fields stamped on every event by the emitter. */
export type Envelope = 'runId' | 'seq' | 'ts';
/** An event as a decoder builds it, before the emitter stamps `runId`, `seq` and `ts`. */
export type EventInit = CanonicalEvent extends infer E ? (E extends CanonicalEvent ? Omit<E, Envelope> : never) : never;

export type Usage = z.infer<typeof usageSchema>;
export type Citation = z.infer<typeof citationSchema>;
export type Todo = z.infer<typeof todoSchema>;
export type FinishReason = z.infer<typeof finishReasonSchema>;
export type ReasoningVariant = z.infer<typeof reasoningVariantSchema>;
export type ProviderMetadata = z.infer<typeof providerMetadataSchema>;
export type Location = z.infer<typeof locationSchema>;
/** A JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
