/**
 * The names of every framework and protocol, without loading any decoder or encoder: for CLIs and
 * servers that validate a name before they need the code. A test keeps these equal to the registries.
 */
export const FRAMEWORK_NAMES = [
  'anthropic',
  'claude',
  'deepagents',
  'openai-chat',
  'openai-responses',
  'openai-agents',
  'openai',
  'langchain',
  'langgraph',
  'gemini',
  'gemini-interactions',
  'gemini-simple',
  'claude-agent-sdk',
  'smolagents',
  'ag-ui',
  'ws',
  'dsagent',
  'ai-sdk',
  'think',
] as const;

export const PROTOCOL_NAMES = ['ai-sdk', 'ag-ui', 'ws', 'dsagent', 'canonical'] as const;

/** Protocols whose frames are written one per line by default (no SSE transport of their own). */
export const LINE_PROTOCOLS: readonly string[] = ['canonical', 'ws', 'dsagent'];
