/**
 * `@switchboard/core/schema`: the canonical model's zod schemas, its JSON Schema and `validate`.
 * A separate entry point so that decoding and encoding never load zod.
 */
export * from './message/schema.ts';
export * from './model/schema.ts';
export type { ValidateOptions, ValidationIssue, ValidationResult } from './model/validate.ts';
export { validate } from './model/validate.ts';
export type { AiSdkChunkType } from './protocols/ai-sdk/schema.ts';
export {
  AI_SDK_CHUNK_SCHEMAS,
  AI_SDK_DONE,
  aiSdkChunkSchema,
  aiSdkDataChunkSchema,
  validateAiSdkChunks,
} from './protocols/ai-sdk/schema.ts';
export { dsAgentRunMessageSchema, validateDsAgentMessages } from './protocols/dsagent/schema.ts';
export { validateWsEvents, WS_SEED_TYPES, wsEventSchema } from './protocols/ws/schema.ts';
