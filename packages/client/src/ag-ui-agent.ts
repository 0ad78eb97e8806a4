/**
 * `ResumableHttpAgent`: `@ag-ui/client`'s HttpAgent whose runs survive a dropped connection.
 *
 * AG-UI's reference client reads one HTTP response per run and fails the run when it breaks. This
 * subclass gives HttpAgent a fetch (see `createResumableFetch`) that, when the SSE response drops
 * before RUN_FINISHED / RUN_ERROR, reconnects to the same run — `GET <url>/runs/<runId>/stream` with
 * `Last-Event-ID` — and splices the rest into the same response body, each event once. The agent never
 * sees the break: its pipeline (verify, apply, subscribers) runs unchanged.
 *
 * Import it from `@switchboard/client/ag-ui` (it loads `@ag-ui/client`, an optional peer dependency).
 */
import { HttpAgent, type HttpAgentConfig } from '@ag-ui/client';
import { createResumableFetch, type ResumeOptions } from './resume.ts';

export interface ResumableHttpAgentConfig extends HttpAgentConfig {
  /** Resume behaviour (backoff, retries, the resume URL…). `protocol` is `ag-ui`. */
  resume?: Omit<ResumeOptions, 'protocol' | 'fetch'>;
}

/**
 * An HttpAgent that resumes its runs.
 *
 * @example
 * const agent = new ResumableHttpAgent({ url: '/api/agui', resume: { maxRetries: 5 } });
 * await agent.runAgent({}, { onTextMessageContentEvent: ({ event }) => render(event.delta) });
 */
export class ResumableHttpAgent extends HttpAgent {
  constructor(config: ResumableHttpAgentConfig) {
    const { resume, ...rest } = config;
    const base = rest.fetch ?? ((url: string, init: RequestInit) => globalThis.fetch(url, init));
    const resumable = createResumableFetch({ ...resume, protocol: 'ag-ui', fetch: base });
    super({ ...rest, fetch: (url, init) => resumable(url, init) });
  }
}
