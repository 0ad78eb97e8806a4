/**
 * `switchboard validate`: checks a canonical event stream or an AI SDK UI message stream and prints
 * `ok (N events)` or one located line per issue.
 */
import {
  AI_SDK_DONE,
  type ValidationResult,
  validate,
  validateAiSdkChunks,
  validateDsAgentMessages,
  validateWsEvents,
} from '@switchboard/core/schema';
import { describeWhere, type Entry, readEntries, type Where } from './frames.ts';
import { CliIoError, openInput } from './io.ts';

interface LocatedIssue {
  index: number;
  where: Where;
  path: string;
  message: string;
}

/** Checks the entries of one input; issues are located by entry index and input position. */
export type CheckedProtocol = 'ai-sdk' | 'canonical' | 'ws' | 'dsagent';

const VALIDATORS: Record<CheckedProtocol, (values: unknown[]) => ValidationResult> = {
  'ai-sdk': validateAiSdkChunks,
  canonical: validate,
  ws: validateWsEvents,
  dsagent: validateDsAgentMessages,
};

export function check(entries: Entry[], protocol: CheckedProtocol): LocatedIssue[] {
  const issues: LocatedIssue[] = [];
  const values: unknown[] = [];
  const positions: number[] = []; // index in `values` → index in `entries`
  entries.forEach((entry, index) => {
    if (entry.kind === 'invalid') {
      issues.push({ index, where: entry.where, path: '', message: entry.message });
      return;
    }
    if (protocol === 'ai-sdk' && !entry.terminated) {
      issues.push({
        index,
        where: entry.where,
        path: '',
        message: 'the last SSE event has no closing blank line; the AI SDK client drops it',
      });
    }
    // [DONE] is the AI SDK's terminator; the other protocols' framing skips it.
    if (entry.kind === 'done' && protocol !== 'ai-sdk') return;
    values.push(entry.kind === 'done' ? AI_SDK_DONE : entry.value);
    positions.push(index);
  });
  const result = VALIDATORS[protocol](values);
  for (const i of result.issues) {
    const index = positions[i.index];
    issues.push({ index, where: entries[index].where, path: i.path, message: i.message });
  }
  return issues.sort((a, b) => a.index - b.index);
}

/** Runs `validate` with parsed flags (`--protocol` is required and checked). */
export async function run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number> {
  const protocol = flags.protocol as CheckedProtocol;
  let entries: Entry[];
  try {
    entries = await readEntries((await openInput(positionals[0])).chunks);
  } catch (err) {
    if (!(err instanceof CliIoError)) throw err;
    process.stderr.write(`switchboard validate: ${err.message}\n`);
    return 1;
  }
  const issues = check(entries, protocol);
  if (issues.length === 0) {
    process.stdout.write(`ok (${entries.length} event${entries.length === 1 ? '' : 's'})\n`);
    return 0;
  }
  let text = '';
  for (const i of issues) text += `event ${i.index} (${describeWhere(i.where)})${i.path ? ` ${i.path}` : ''}: ${i.message}\n`;
  process.stdout.write(text);
  return 1;
}
