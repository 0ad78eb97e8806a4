/** A new chat: what the agent is, and (for the demo agent) prompts to try, one click each. */
import type { AgentInfo } from '../lib/types.ts';

const DEMO_PROMPTS: [string, string][] = [
  ['hi', 'Every block kind: processing, thinking, a tool, a plan, text'],
  ['tool London', 'A tool call and its result'],
  ['step', 'Several steps'],
  ['code print(1)', 'A code panel with its output'],
  ['text Some **markdown** with `code`', 'Markdown'],
  ['text <<{"type":"bar","title":"demo","data":[[1,3],[2,5],[3,2]]}>>', 'A chart'],
  ['error', 'A failed run'],
];

export function Empty({ agent, onPick }: { agent: AgentInfo; onPick: (text: string) => void }) {
  return (
    <div className="empty" data-testid="empty">
      <h2>What can I help with?</h2>
      <p>
        Chatting with <b>{agent.name}</b>
        {agent.description ? ` — ${agent.description}` : ''}
      </p>
      {agent.name === 'demo' ? (
        <ul className="suggestions" aria-label="Try one of these">
          {DEMO_PROMPTS.map(([prompt, what]) => (
            <li key={prompt}>
              <button type="button" onClick={() => onPick(prompt)} data-testid="suggestion">
                <code>{prompt.length > 40 ? `${prompt.slice(0, 38)}…` : prompt}</code>
                <span className="muted small">{what}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
