/**
 * `npm run schema`: writes the JSON Schema of the canonical event to packages/core/schema/.
 * A test checks that the committed file matches, so it never goes stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { canonicalJsonSchema } from '../src/schema.ts';

export const SCHEMA_PATH = new URL('../schema/canonical-event.schema.json', import.meta.url);

/** The file's exact contents. */
export function schemaText(): string {
  return `${JSON.stringify(canonicalJsonSchema(), null, 2)}\n`;
}

if (import.meta.main) {
  mkdirSync(new URL('.', SCHEMA_PATH), { recursive: true });
  writeFileSync(SCHEMA_PATH, schemaText());
  console.log(`wrote ${SCHEMA_PATH.pathname}`);
}
