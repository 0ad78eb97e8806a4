/**
 * TypeScript types of the canonical event model, inferred from the zod schemas in `schema.ts`.
 * Type-only imports: using these types never loads zod.
 */
import type { z } from 'zod';
import type * as schema from './schema.ts';

/** Any canonical event. Discriminated on `type`. */
export type CanonicalEvent = z.infer<typeof schema.canonicalEventSchema>;
/** The `type` of a canonical event. */
export type CanonicalEventType = CanonicalEvent['type'];
/** The canonical event with the given `type`. */
export type EventOf<T extends CanonicalEventType> = Extract<CanonicalEvent, { type: T }>;
/** Fields stamped on every event by the emitter. */
export type Envelope = 'runId' | 'seq' | 'ts';
/** An event as a decoder builds it, before the emitter stamps `runId`, `seq` and `ts`. */
export type EventInit = CanonicalEvent extends infer E ? (E extends CanonicalEvent ? Omit<E, Envelope> : never) : never;

export type Usage = z.infer<typeof schema.usageSchema>;
export type Citation = z.infer<typeof schema.citationSchema>;
export type Todo = z.infer<typeof schema.todoSchema>;
export type FinishReason = z.infer<typeof schema.finishReasonSchema>;
export type ReasoningVariant = z.infer<typeof schema.reasoningVariantSchema>;
export type ProviderMetadata = z.infer<typeof schema.providerMetadataSchema>;
export type Location = z.infer<typeof schema.locationSchema>;
/** A JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
