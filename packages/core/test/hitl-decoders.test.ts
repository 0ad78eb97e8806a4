/**
 * A person in the loop, decoded from every framework that has one, through both UI protocols: the
 * recorded / SDK-generated captures of Claude Agent SDK permission prompts, OpenAI Agents approvals,
 * Responses hosted-MCP approvals and LangGraph interrupts decode to valid canonical approvals /
 * interrupts, and their AI SDK and AG-UI streams pass the official validators (`ai`'s
 * uiMessageChunkSchema + readUIMessageStream; `@ag-ui/client`'s HttpAgent pipeline + `@ag-ui/core`'s
 * EventSchemas). Each decoder's own tests check its captures are lossless.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UIMessage } from 'ai';
import { runAgUi, schemaIssues, summarizeAgUi } from '../../../test/support/ag-ui-oracle.ts';
import { assembleChunks, parseAiSdkSse, summarizeMessage } from '../../../test/support/ai-sdk-oracle.ts';
import type { CanonicalEvent, EventOf, Framework } from '../src/index.ts';
import { validate } from '../src/schema.ts';
import { convert, decodeChunks, FIXTURES, ofType } from './helpers.ts';

const OWN = new URL('./fixtures/', import.meta.url).pathname;

interface Capture {
  file: string;
  from: Framework;
  /** What the run ends waiting for (run-finish.pending), if anything. */
  pending?: EventOf<'run-finish'>['pending'];
  approvals: { approvalId: string; toolCallId: string; toolName?: string }[];
  answers?: { approvalId: string; approved: boolean }[];
  interrupts?: string[];
  /** What the text the AI SDK client ends with matches. */
  text?: RegExp;
  /** The state the AI SDK client's part of the approved / denied / waiting tool call ends in. */
  part?: { toolName: string; state: string };
  /** The capture of the paused run this one continues (the client holds its message). */
  continues?: string;
}

const CAPTURES: Capture[] = [
  {
    file: `${OWN}claude-agent-sdk/permission-allow.jsonl`,
    from: 'claude-agent-sdk',
    approvals: [{ approvalId: 'b3b9bd16-a7a2-4014-b613-d58242eb50e4', toolCallId: 'toolu_01PeRmD3lEtE4nOtEs5tXt6A', toolName: 'Bash' }],
    answers: [{ approvalId: 'b3b9bd16-a7a2-4014-b613-d58242eb50e4', approved: true }],
    text: /Deleted notes\.txt\.$/,
    part: { toolName: 'Bash', state: 'output-available' },
  },
  {
    file: `${OWN}claude-agent-sdk/permission-deny.jsonl`,
    from: 'claude-agent-sdk',
    approvals: [{ approvalId: '9062acda-9795-4c17-b181-166230270ead', toolCallId: 'toolu_01PeRmD3lEtE4nOtEs5tXt6A', toolName: 'Bash' }],
    answers: [{ approvalId: '9062acda-9795-4c17-b181-166230270ead', approved: false }],
    text: /Left notes\.txt alone\.$/,
    part: { toolName: 'Bash', state: 'output-denied' },
  },
  {
    file: `${OWN}claude-agent-sdk/permission-pending.jsonl`,
    from: 'claude-agent-sdk',
    approvals: [{ approvalId: '64bad10e-bfa6-44f4-9623-2bc060d199e6', toolCallId: 'toolu_01PeRmD3lEtE4nOtEs5tXt6A', toolName: 'Bash' }],
    pending: { approvalIds: ['64bad10e-bfa6-44f4-9623-2bc060d199e6'] },
    part: { toolName: 'Bash', state: 'approval-requested' },
  },
  {
    file: `${OWN}openai-agents/responses-approval.jsonl`,
    from: 'openai-agents',
    approvals: [{ approvalId: 'call_delete_1', toolCallId: 'call_delete_1', toolName: 'delete_file' }],
    pending: { approvalIds: ['call_delete_1'] },
    part: { toolName: 'delete_file', state: 'approval-requested' },
  },
  {
    file: `${OWN}openai-agents/responses-approval-approved.jsonl`,
    from: 'openai-agents',
    approvals: [],
    text: /^Deleted notes\.txt\.$/,
    part: { toolName: 'delete_file', state: 'output-available' },
    continues: `${OWN}openai-agents/responses-approval.jsonl`,
  },
  {
    file: `${OWN}openai-agents/responses-approval-rejected.jsonl`,
    from: 'openai-agents',
    approvals: [],
    answers: [{ approvalId: 'call_delete_1', approved: false }],
    text: /^Left notes\.txt alone\.$/,
    part: { toolName: 'delete_file', state: 'output-denied' },
    continues: `${OWN}openai-agents/responses-approval.jsonl`,
  },
  {
    file: `${FIXTURES}recorded/openai-responses/openai-mcp-tool-approval.3.chunks.txt`,
    from: 'openai-responses',
    approvals: [
      { approvalId: 'mcpr_04a97b4fce127879006949a8672ac081959f95aa8ceedb7cd9', toolCallId: '', toolName: 'mcp.create_short_url' },
    ],
    pending: { approvalIds: ['mcpr_04a97b4fce127879006949a8672ac081959f95aa8ceedb7cd9'] },
    part: { toolName: 'mcp.create_short_url', state: 'approval-requested' },
  },
  {
    file: `${OWN}openai-responses/mcp-approval-approved.jsonl`,
    from: 'openai-responses',
    approvals: [
      { approvalId: 'mcpr_04a97b4fce127879006949a8672ac081959f95aa8ceedb7cd9', toolCallId: '', toolName: 'mcp.create_short_url' },
    ],
    answers: [{ approvalId: 'mcpr_04a97b4fce127879006949a8672ac081959f95aa8ceedb7cd9', approved: true }],
    text: /zip1\.io/,
    part: { toolName: 'mcp.create_short_url', state: 'output-available' },
  },
  {
    file: `${OWN}openai-responses/mcp-approval-denied.jsonl`,
    from: 'openai-responses',
    approvals: [
      { approvalId: 'mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe', toolCallId: '', toolName: 'mcp.create_short_url' },
    ],
    answers: [{ approvalId: 'mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe', approved: false }],
    text: /wasn’t able/,
    part: { toolName: 'mcp.create_short_url', state: 'output-denied' },
  },
  {
    file: `${FIXTURES}recorded/langchain/langgraph.LANGGRAPH_RESPONSE_1.jsonl`,
    from: 'langgraph',
    approvals: [{ approvalId: '32af76067f247461dd16d63e49c49e88', toolCallId: 'call_LOd3dMxgYxmNLWZVWXra9xWQ', toolName: 'delete_file' }],
    pending: { approvalIds: ['32af76067f247461dd16d63e49c49e88'] },
    part: { toolName: 'delete_file', state: 'approval-requested' },
  },
  {
    file: `${OWN}langchain/graph-subgraph-interrupt.jsonl`,
    from: 'langgraph',
    approvals: [],
    interrupts: ['f48a9c3de5a048bda75d4470243a5f7c'],
    pending: { interruptIds: ['f48a9c3de5a048bda75d4470243a5f7c'] },
  },
];

const short = (file: string) => file.split('/').slice(-2).join('/');

describe('person in the loop: framework captures decode to canonical approvals and interrupts', () => {
  for (const c of CAPTURES) {
    test(`${short(c.file)} (${c.from})`, () => {
      const events: CanonicalEvent[] = decodeChunks([readFileSync(c.file)], c.from);
      assert.deepEqual(validate(events).issues, []);
      assert.equal(ofType(events, 'error').length, 0);
      const requests = ofType(events, 'tool-approval-request');
      assert.deepEqual(
        requests.map((r) => [r.approvalId, r.toolName]),
        c.approvals.map((a) => [a.approvalId, a.toolName]),
      );
      for (const [i, r] of requests.entries()) {
        const expected = c.approvals[i]?.toolCallId;
        if (expected) assert.equal(r.toolCallId, expected);
        // The call was announced before it waits for approval.
        const end = events.findIndex((e) => e.type === 'tool-input-end' && e.toolCallId === r.toolCallId);
        assert.ok(end >= 0 && end < events.indexOf(r), `${r.toolCallId} announced before its approval request`);
        // Announced once, even when a later response runs it.
        assert.equal(events.filter((e) => e.type === 'tool-input-start' && e.toolCallId === r.toolCallId).length, 1);
        const last = events.findLastIndex((e) => e.type === 'tool-input-delta' && e.toolCallId === r.toolCallId);
        assert.ok(last < end, 'no input after the call was announced');
      }
      assert.deepEqual(
        ofType(events, 'tool-approval-response').map((r) => ({ approvalId: r.approvalId, approved: r.approved })),
        c.answers ?? [],
      );
      for (const r of ofType(events, 'tool-approval-response')) {
        // A denied tool does not run.
        if (!r.approved && r.toolCallId) assert.equal(ofType(events, 'tool-output').filter((o) => o.toolCallId === r.toolCallId).length, 0);
      }
      assert.deepEqual(
        ofType(events, 'interrupt').map((i) => i.interruptId),
        c.interrupts ?? [],
      );
      const finish = events.at(-1);
      assert.ok(finish?.type === 'run-finish');
      assert.deepEqual(finish.pending, c.pending);
      if (c.pending) assert.equal(finish.finishReason, c.pending.approvalIds ? 'tool-calls' : 'other');
    });
  }
});

/** The AI SDK client's message after a stream, continuing `previous` when the run continues one (as useChat does). */
async function aiSdkMessage(sse: string, previous?: UIMessage): Promise<{ message: UIMessage; finishReason?: string }> {
  const { message, finishReason, errorTexts } = await assembleChunks(await parseAiSdkSse(sse), previous);
  assert.deepEqual(errorTexts, []);
  return { message, finishReason };
}

/** A continuation run carries the id of the message it continues and says so (as the gateway's run-start does). */
const toAiSdk = (c: Capture, file = c.file, messageId?: string) =>
  convert(readFileSync(file), { from: c.from, to: 'ai-sdk', ...(messageId ? { messageId, continues: true } : {}) });
const toAgUi = (c: Capture, file = c.file) => convert(readFileSync(file), { from: c.from, to: 'ag-ui' });

describe('person in the loop: the AI SDK stream of each capture passes the official schema and assembles', () => {
  for (const c of CAPTURES) {
    test(`${short(c.file)} (${c.from})`, async () => {
      const previous = c.continues ? (await aiSdkMessage(toAiSdk(c, c.continues))).message : undefined;
      const { message, finishReason } = await aiSdkMessage(toAiSdk(c, c.file, previous?.id), previous);
      if (c.pending) assert.equal(finishReason, c.pending.approvalIds ? 'tool-calls' : 'other');
      const summary = summarizeMessage(message);
      if (c.text) assert.match(summary.text, c.text);
      if (c.part) {
        const parts = summary.tools.filter((t) => t.toolName === c.part?.toolName);
        assert.deepEqual(
          parts.map((t) => t.state),
          [c.part.state],
          `${c.part.toolName}: one tool part, ${c.part.state}`,
        );
      }
      // A LangGraph interrupt that is not an approval is a data part the client keeps.
      for (const id of c.interrupts ?? [])
        assert.ok(message.parts.some((p) => p.type === 'data-interrupt' && (p as { id?: string }).id === id));
    });
  }
});

describe('person in the loop: the AG-UI stream of each capture passes the official client', () => {
  for (const c of CAPTURES) {
    test(`${short(c.file)} (${c.from})`, async () => {
      const initialMessages = c.continues ? (await runAgUi(toAgUi(c, c.continues))).messages : undefined;
      const run = await runAgUi(toAgUi(c), initialMessages ? { initialMessages } : {});
      assert.equal(run.error, undefined, String(run.error));
      assert.deepEqual(run.warnings, []);
      assert.deepEqual(schemaIssues(run.events), []);
      const finished = run.events.at(-1) as { type: string; outcome?: { type: string; interrupts?: { id: string }[] } };
      assert.equal(finished.type, 'RUN_FINISHED');
      // What the run waits for is the RUN_FINISHED interrupt outcome, answered by RunAgentInput.resume.
      const waiting = [...(c.pending?.approvalIds ?? []), ...(c.pending?.interruptIds ?? [])];
      if (waiting.length > 0) {
        assert.equal(finished.outcome?.type, 'interrupt');
        assert.deepEqual(
          finished.outcome?.interrupts?.map((i) => i.id),
          waiting,
        );
      } else assert.notEqual(finished.outcome?.type, 'interrupt');
      if (c.text) assert.match(summarizeAgUi(run.messages).text, c.text);
    });
  }
});
