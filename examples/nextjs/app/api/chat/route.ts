/**
 * Next.js App Router route handler: `app/api/chat/route.ts`, where `useChat` posts by default.
 * The gateway answers the AI SDK UI message stream, records every run and serves history, replay
 * and resume. It keeps its state in this module, so one gateway lives as long as the server process.
 */
import { createGateway } from '@switchboard/server';

// The gateway runs agents as processes and stores in node:sqlite: the Node.js runtime, not Edge.
export const runtime = 'nodejs';
// Every request streams a new run: never cache or prerender.
export const dynamic = 'force-dynamic';

// The built-in agents (the demo answers without an API key; `anthropic` / `openai` / `gemini` with
// one) and an in-memory SQLite store; pass `config` and `store` for your agents and a database.
const gateway = createGateway();

export async function POST(req: Request): Promise<Response> {
  return gateway.app.fetch(req);
}
