/**
 * Every input the conformance matrix runs: every file of test/fixtures (recorded captures and
 * the SDK-verified scenarios) and our own recorded captures, each as the bytes a decoder reads.
 * The recorded AG-UI traces hold several journeys per file (`{journey, seq, event}` lines): each
 * journey is one input, replayed as AG-UI SSE.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const SHARED = new URL('../fixtures/', import.meta.url).pathname;
export const OWN = new URL('../../packages/core/test/fixtures/', import.meta.url).pathname;

export interface MatrixInput {
  /** Where it came from, relative to the fixtures folder. */
  name: string;
  /** The bytes as a decoder receives them. */
  body: Uint8Array;
  /** For a run that continues an earlier one (after an approval): that run's input; the client holds its message. */
  continues?: Uint8Array;
}

/** Runs that continue an earlier run of the same chat (the resumed OpenAI Agents runs), and that run. */
const CONTINUES: Record<string, string> = {
  'own/openai-agents/responses-approval-approved.jsonl': 'openai-agents/responses-approval.jsonl',
  'own/openai-agents/responses-approval-rejected.jsonl': 'openai-agents/responses-approval.jsonl',
};

/** Files that are not inputs: notes, expected results, recorders, official outputs, licence texts. */
function isInput(path: string): boolean {
  const file = path.split('/').at(-1) as string;
  if (/\.(md|json|ts|mjs|py)$/.test(file) || file.includes('.aisdk-ref.')) return false;
  return !path.split('/').some((p) => p === 'recorder' || p === 'recorders' || p === 'LICENSES');
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (isInput(path)) out.push(path);
  }
  return out;
}

function agUiJourneys(path: string, name: string): MatrixInput[] {
  const journeys = new Map<string, { seq: number; event: unknown }[]>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const { journey, seq, event } = JSON.parse(line) as { journey: string; seq: number; event: unknown };
    const list = journeys.get(journey) ?? [];
    list.push({ seq, event });
    journeys.set(journey, list);
  }
  return [...journeys].map(([journey, events]) => ({
    name: `${name}#${journey}`,
    body: new TextEncoder().encode(
      events
        .sort((a, b) => a.seq - b.seq)
        .map((e) => `data: ${JSON.stringify(e.event)}\n\n`)
        .join(''),
    ),
  }));
}

/** All matrix inputs, in a stable order. */
export function matrixInputs(): MatrixInput[] {
  const inputs: MatrixInput[] = [];
  for (const [root, prefix] of [
    [SHARED, 'shared'],
    [OWN, 'own'],
  ] as const) {
    for (const path of walk(root, [])) {
      const name = `${prefix}/${relative(root, path)}`;
      if (name.startsWith('shared/recorded/ag-ui/')) inputs.push(...agUiJourneys(path, name));
      else {
        const continues = CONTINUES[name];
        inputs.push({
          name,
          body: new Uint8Array(readFileSync(path)),
          ...(continues ? { continues: new Uint8Array(readFileSync(join(OWN, continues))) } : {}),
        });
      }
    }
  }
  return inputs;
}
