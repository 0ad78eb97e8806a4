/**
 * A stock CopilotKit app (v2 React API: `CopilotKit` + `CopilotChat`), no Switchboard code:
 * `useInterrupt` answers the gateway's approval interrupt (Approve → `resolve({ approved: true })`,
 * Deny → `cancel()`), `useFrontendTool` runs `get_location` in the page. `?chat=` is the thread id
 * (the gateway's chat), `?agent=` the runtime's agent (else `default`). stock-copilotkit.test.ts
 * bundles it and serves it beside the runtime.
 */
import { CopilotChat, CopilotKit, useFrontendTool, useInterrupt } from '@copilotkit/react-core/v2';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';

const params = new URLSearchParams(location.search);
const threadId = params.get('chat') ?? 'copilotkit';
const agentId = params.get('agent') ?? undefined;

function PersonInTheLoop() {
  useInterrupt({
    render: ({ interrupt, resolve, cancel }) => (
      <div data-testid="interrupt">
        <p>{interrupt?.message}</p>
        <button type="button" onClick={() => void resolve({ approved: true })}>
          Approve
        </button>
        <button type="button" onClick={() => void cancel()}>
          Deny
        </button>
      </div>
    ),
  });
  useFrontendTool({
    name: 'get_location',
    description: 'Where the user is',
    parameters: z.object({}),
    handler: async () => 'Paris',
  });
  return null;
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <CopilotKit runtimeUrl="/api/copilotkit">
    <PersonInTheLoop />
    <CopilotChat threadId={threadId} agentId={agentId} />
  </CopilotKit>,
);
