/**
 * DeepSearchAgents' vocabulary both directions share: the python interpreter's tool name and the
 * component routing of a message (no zod here, so the encoder and the reader load it without the
 * schemas).
 */

/** The smolagents code tool's name; its code blocks go to the web IDE. */
export const PYTHON = 'python_interpreter';

/**
 * DeepSearchAgents' component routing: python_interpreter code blocks → webide; observations of
 * other tools → terminal; and (its StreamEvent flow document's prose, web_ui.py) execution logs →
 * terminal; the rest → chat.
 */
export function routeComponent(toolName: string | undefined, messageType: string, content: string): 'chat' | 'webide' | 'terminal' {
  if (toolName === PYTHON && content.includes('```python')) return 'webide';
  if ((messageType === 'observation' && toolName !== PYTHON) || messageType === 'execution_logs') return 'terminal';
  return 'chat';
}
