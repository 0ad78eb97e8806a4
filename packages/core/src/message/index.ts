/** The assistant message: its types (`types.ts`, from the zod schemas in `schema.ts`) and its one fold. */

export { createMessageFold, elapsedMs, foldMessage, type MessageFold, type MessageFoldOptions, sourceInfo } from './fold.ts';
export type * from './types.ts';
