/**
 * `npm run schema`: writes the JSON Schemas of the canonical event and of the assistant message to
 * packages/core/schema/. A test checks that the committed files match, so they never go stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { canonicalJsonSchema, messageJsonSchema } from '../src/schema.ts';

export const SCHEMA_PATH = new URL('../schema/canonical-event.schema.json', import.meta.url);
export const MESSAGE_SCHEMA_PATH = new URL('../schema/assistant-message.schema.json', import.meta.url);

/** The canonical event schema file's exact contents. */
export function schemaText(): string {
  return `${JSON.stringify(canonicalJsonSchema(), null, 2)}\n`;
}

/** The assistant message schema file's exact contents. */
export function messageSchemaText(): string {
  return `${JSON.stringify(messageJsonSchema(), null, 2)}\n`;
}

if (import.meta.main) {
  mkdirSync(new URL('.', SCHEMA_PATH), { recursive: true });
  writeFileSync(SCHEMA_PATH, schemaText());
  writeFileSync(MESSAGE_SCHEMA_PATH, messageSchemaText());
  console.log(`wrote ${SCHEMA_PATH.pathname} and ${MESSAGE_SCHEMA_PATH.pathname}`);
}
