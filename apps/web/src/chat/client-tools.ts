/**
 * Frontend tools: tools an agent may call that the browser answers itself. Both chat modes declare
 * them (AG-UI `tools`), run them when a call arrives, and send the output back so the agent goes
 * on. One tool today: `get_location`, the reader's position from the browser's geolocation, or
 * "Paris" when the browser has none, the reader refuses, or it takes too long.
 *
 * Also the rule that decides when the AI SDK chat sends automatically (`sendAutomaticallyWhen`):
 * only after an answer given on this page, and once per answer, so a reply that keeps a finished
 * tool call in its last step (the demo's own tools, an approved tool with text after it) never
 * sends itself again in a loop.
 */
import { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from 'ai';

import { type ChatMessage, isRecord, type LoosePart } from '../lib/types.ts';

export const GET_LOCATION = 'get_location';
/** What `get_location` answers when the browser cannot tell. */
export const FALLBACK_PLACE = 'Paris';
/** How long `get_location` waits for the browser (a permission prompt nobody answers included). */
export const LOCATION_TIMEOUT_MS = 5_000;

/** A tool the browser runs, as AG-UI's `RunAgentInput.tools` declares it (JSON Schema parameters). */
export interface FrontendTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export const FRONTEND_TOOLS: readonly FrontendTool[] = [
  {
    name: GET_LOCATION,
    description: "The user's current location, from their browser (a place name or coordinates).",
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

export function isFrontendTool(name: string): boolean {
  return FRONTEND_TOOLS.some((t) => t.name === name);
}

type Geo = Pick<Geolocation, 'getCurrentPosition'>;

/** The reader's position as "lat, lon", or FALLBACK_PLACE. Never rejects. */
export function locate(geo: Geo | undefined = globalThis.navigator?.geolocation, timeoutMs = LOCATION_TIMEOUT_MS): Promise<string> {
  if (!geo) return Promise.resolve(FALLBACK_PLACE);
  return new Promise((resolve) => {
    let settled = false;
    const done = (place: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(place);
    };
    // The API's own timeout does not count the time a permission prompt stays open.
    const timer = setTimeout(() => done(FALLBACK_PLACE), timeoutMs);
    try {
      geo.getCurrentPosition(
        (p) => done(`${p.coords.latitude.toFixed(4)}, ${p.coords.longitude.toFixed(4)}`),
        () => done(FALLBACK_PLACE),
        { timeout: timeoutMs, maximumAge: 600_000 },
      );
    } catch {
      done(FALLBACK_PLACE);
    }
  });
}

/** Runs a frontend tool; undefined when `name` is not one. */
export function runFrontendTool(name: string, _input: unknown): Promise<unknown> | undefined {
  if (name === GET_LOCATION) return locate();
  return undefined;
}

const isToolPart = (p: LoosePart): boolean => p.type === 'dynamic-tool' || p.type.startsWith('tool-');

/** A frontend tool call waiting for the browser's answer. */
export interface FrontendCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The frontend tool calls among `parts` that have no result yet. */
export function frontendCallsWaiting(parts: readonly LoosePart[]): FrontendCall[] {
  return parts
    .filter((p) => p.type.startsWith('tool-') && p.state === 'input-available' && isFrontendTool(p.type.slice(5)))
    .map((p) => ({ toolCallId: String(p.toolCallId), toolName: p.type.slice(5), input: p.input }));
}

/** The tool parts of a message's last step. */
function lastStepTools(message: ChatMessage): LoosePart[] {
  const parts = message.parts as unknown as LoosePart[];
  const start = parts.findLastIndex((p) => p.type === 'step-start');
  return parts.slice(start + 1).filter(isToolPart);
}

/**
 * `sendAutomaticallyWhen` for a chat with approvals and frontend tools. `answered` holds the
 * approval ids and tool call ids answered on this page and not yet sent; the stock rules
 * (`lastAssistantMessageIsCompleteWith…`) decide whether everything is answered, and an answer
 * counts once: it leaves `answered` when the request goes.
 */
export function continueAfterAnswers(answered: Set<string>): (options: { messages: ChatMessage[] }) => boolean {
  return ({ messages }) => {
    const last = messages.at(-1);
    if (last?.role !== 'assistant') return false;
    const tools = lastStepTools(last);
    const approvals = tools
      .filter((p) => p.state === 'approval-responded' && isRecord(p.approval) && answered.has(String(p.approval.id)))
      .map((p) => String((p.approval as Record<string, unknown>).id));
    const outputs = tools
      .filter((p) => p.state === 'output-available' && answered.has(String(p.toolCallId)))
      .map((p) => String(p.toolCallId));
    const send =
      (approvals.length > 0 && lastAssistantMessageIsCompleteWithApprovalResponses({ messages })) ||
      (outputs.length > 0 && lastAssistantMessageIsCompleteWithToolCalls({ messages }));
    if (send) for (const id of [...approvals, ...outputs]) answered.delete(id);
    return send;
  };
}
