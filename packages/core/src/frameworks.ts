/**
 * The decoder registry (the `--from` names) and framework recognition. It sits above `inputs/` and
 * `protocols/` because it registers decoders from both; `inputs/` never imports `protocols/`.
 */

import { createAnthropicDecoder } from './inputs/anthropic.ts';
import { createClaudeAgentDecoder, createDeepAgentsDecoder } from './inputs/claude.ts';
import { createClaudeAgentSdkDecoder, detectClaudeAgentSdk } from './inputs/claude-agent-sdk.ts';
import { type Decoder, isObject } from './inputs/decoder.ts';
import { createGeminiDecoder, detectGemini } from './inputs/gemini.ts';
import { createGeminiInteractionsDecoder, detectGeminiInteractions } from './inputs/gemini-interactions.ts';
import { createGeminiSimpleDecoder } from './inputs/gemini-simple.ts';
import { guard } from './inputs/guard.ts';
import { createLangchainDecoder, detectLangchain } from './inputs/langchain.ts';
import { createLanggraphDecoder, detectLanggraph } from './inputs/langgraph.ts';
import { createOpenAIAgentsDecoder, detectOpenAIAgents } from './inputs/openai-agents.ts';
import { detectOpenAIChat } from './inputs/openai-chat.ts';
import { createOpenAIResponsesDecoder, detectOpenAIResponses } from './inputs/openai-responses.ts';
import { createOpenAISimpleDecoder } from './inputs/openai-simple.ts';
import { createSmolagentsDecoder, detectSmolagents } from './inputs/smolagents.ts';
import { createOpenAIChatThinkDecoder, createThinkDecoder, withThinkTags } from './inputs/think.ts';
import type { DecoderOptions } from './model/emitter.ts';
import type { CanonicalEvent, Location } from './model/events.ts';
import { createAgUiDecoder, detectAgUi } from './protocols/ag-ui/reader.ts';
import { createAiSdkDecoder, detectAiSdk } from './protocols/ai-sdk/reader.ts';
import { createDsAgentDecoder, detectDsAgent } from './protocols/dsagent/reader.ts';
import { createWsDecoder, detectWs } from './protocols/ws/reader.ts';
import type { ThinkTagOptions } from './transforms/think-tags.ts';

/**
 * Frameworks with a decoder. `claude` is the simplified Claude agent format's `{"type","data"}` lines and
 * `deepagents` its DeepAgents dialect; `auto` reads such lines as `claude` (it understands every type).
 */
export const FRAMEWORKS = {
  anthropic: createAnthropicDecoder,
  claude: createClaudeAgentDecoder,
  deepagents: createDeepAgentsDecoder,
  /** Chat Completions; a leading `<think>` section (open models) becomes reasoning. */
  'openai-chat': createOpenAIChatThinkDecoder,
  'openai-responses': createOpenAIResponsesDecoder,
  'openai-agents': createOpenAIAgentsDecoder,
  /** The agent line format's simple OpenAI dialect; shares the `{"type","data"}` envelope, so never auto-detected. */
  openai: createOpenAISimpleDecoder,
  langchain: createLangchainDecoder,
  langgraph: createLanggraphDecoder,
  gemini: createGeminiDecoder,
  'gemini-interactions': createGeminiInteractionsDecoder,
  /** The agent line format's simple Gemini dialect; shares the `{"type","data"}` envelope, so never auto-detected. */
  'gemini-simple': createGeminiSimpleDecoder,
  'claude-agent-sdk': createClaudeAgentSdkDecoder,
  smolagents: createSmolagentsDecoder,
  /** AG-UI events read back (so an AG-UI agent can feed any UI). */
  'ag-ui': createAgUiDecoder,
  /** The WebSocket agent:event contract's frames read back. */
  ws: createWsDecoder,
  /** DeepSearchAgents' DSAgentRunMessage frames read back. */
  dsagent: createDsAgentDecoder,
  /** The Vercel AI SDK UI message stream (what useChat reads): any AI SDK server's output. */
  'ai-sdk': createAiSdkDecoder,
  /** Text with <think> tags: raw text chunks, or OpenAI-compatible chat chunks; never auto-detected. */
  think: createThinkDecoder,
} as const satisfies Record<string, (options?: DecoderOptions) => Decoder>;

export type Framework = keyof typeof FRAMEWORKS;

const ANTHROPIC_TYPES = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
]);

/** Recognises the framework from one input value, or returns undefined when it cannot tell yet. */
export function detectFramework(value: unknown): Framework | undefined {
  // Chat Completions chunks have no `type`.
  if (detectOpenAIChat(value)) return 'openai-chat';
  // Gemini generateContent / Live API chunks and Interactions API events have no `type` either.
  if (detectGeminiInteractions(value)) return 'gemini-interactions';
  if (detectGemini(value)) return 'gemini';
  if (detectLangchain(value)) return 'langchain';
  if (detectLanggraph(value)) return 'langgraph';
  if (detectClaudeAgentSdk(value)) return 'claude-agent-sdk';
  if (detectSmolagents(value)) return 'smolagents';
  if (detectAgUi(value)) return 'ag-ui';
  if (detectDsAgent(value)) return 'dsagent';
  if (detectWs(value)) return 'ws';
  if (!isObject(value) || typeof value.type !== 'string') return undefined;
  // Before the Anthropic `error` rule and the `data` rule: Agents events have `data`, and a Responses
  // `error` event has a nested `error` (but also a sequence_number).
  if (detectOpenAIAgents(value)) return 'openai-agents';
  if (detectOpenAIResponses(value)) return 'openai-responses';
  if (ANTHROPIC_TYPES.has(value.type)) return 'anthropic';
  if (value.type === 'error' && isObject(value.error) && !('data' in value)) return 'anthropic';
  // AI SDK data-* chunks carry `data` too: before the agent format.
  if (detectAiSdk(value)) return 'ai-sdk';
  if ('data' in value) return 'claude';
  return undefined;
}

/** True when `name` is a framework with a decoder. */
export function isFramework(name: string): name is Framework {
  return Object.hasOwn(FRAMEWORKS, name);
}

/**
 * Creates the decoder for a framework. With `auto`, the framework is recognised from the first
 * values (held back until it is known; the first value decides when nothing does). Every decoder
 * runs behind the hostile-input guard (`guard.ts`): it never throws, and what it emits is safe.
 */
export function createDecoder(framework: Framework | 'auto', options: DecoderOptions = {}): Decoder {
  const decoder = createFrameworkDecoder(framework, options);
  const tags = thinkTagsOf(options.thinkTags);
  return guard(tags && framework !== 'think' ? withThinkTags(decoder, tags) : decoder);
}

/** A tag name such as `think` or `thinking` (the `thinkTags` option). */
const TAG_NAME = /^[A-Za-z][\w.:-]*$/;

/** The extractor options of the `thinkTags` decoder option; undefined when it is off. */
export function thinkTagsOf(option: boolean | string | undefined): ThinkTagOptions | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return {};
  const name = option.replace(/^<(.*)>$/, '$1');
  if (!TAG_NAME.test(name)) throw new TypeError(`invalid thinkTags "${option}": expected a tag name such as "think" or "thinking"`);
  return { open: `<${name}>`, close: `</${name}>` };
}

function createFrameworkDecoder(framework: Framework | 'auto', options: DecoderOptions): Decoder {
  if (framework !== 'auto') {
    const make = FRAMEWORKS[framework];
    if (!make) throw new TypeError(`unknown framework "${framework}"; expected one of: auto, ${Object.keys(FRAMEWORKS).join(', ')}`);
    return make(options);
  }
  let inner: Decoder | undefined;
  const held: ({ value: unknown; where?: Location } | { fault: [string, string, Location] })[] = [];
  const replay = (d: Decoder): CanonicalEvent[] => {
    const out: CanonicalEvent[] = [];
    for (const h of held) out.push(...('fault' in h ? d.fault(...h.fault) : d.push(h.value, h.where)));
    held.length = 0;
    return out;
  };
  return {
    push(value, where) {
      if (inner) return inner.push(value, where);
      held.push({ value, where });
      const found = detectFramework(value);
      if (!found) return [];
      inner = FRAMEWORKS[found](options);
      return replay(inner);
    },
    fault(code, message, where) {
      if (inner) return inner.fault(code, message, where);
      held.push({ fault: [code, message, where] });
      return [];
    },
    end() {
      if (!inner) {
        // Nothing recognisable: the agent format reports the input line by line.
        inner = FRAMEWORKS.claude(options);
        const out = replay(inner);
        return [...out, ...inner.end()];
      }
      return inner.end();
    },
  };
}
