/**
 * The `langchain` built-in agent: a real LangChain.js chat model run through `streamEvents`
 * (version v2), decoded by core's `langchain` decoder — the path a LangChain app's events take.
 *
 * The chat model is a small `BaseChatModel` whose `_streamResponseChunks` calls the configured
 * provider (Anthropic, OpenAI or Gemini, whichever key is set) with `fetch` and turns its stream
 * into `AIMessageChunk`s (text, `reasoning_content`, tool call chunks, usage, finish reason). No
 * provider package is needed; `@langchain/core` is, and is loaded only when this agent runs (it is
 * disabled when it cannot be resolved).
 */
import { type CanonicalEvent, decode } from '@switchboard/core';
import type { ProviderSettings } from '../config/types.ts';
import { AgentError, decoderOptions, type InProcessContext } from '../runner/in-process.ts';
import type { RunMessage } from '../runner/types.ts';
import { messageText } from './messages.ts';
import { providerStream } from './providers.ts';

type LcModules = [
  typeof import('@langchain/core/language_models/chat_models'),
  typeof import('@langchain/core/messages'),
  typeof import('@langchain/core/outputs'),
];

let modules: Promise<LcModules> | undefined;

function load(): Promise<LcModules> {
  modules ??= Promise.all([
    import('@langchain/core/language_models/chat_models'),
    import('@langchain/core/messages'),
    import('@langchain/core/outputs'),
  ]).catch((err: unknown) => {
    modules = undefined;
    throw new AgentError('agent_disabled', `the langchain agent needs @langchain/core: ${(err as Error).message}`);
  });
  return modules;
}

/** Builds the chat model class once the modules are loaded. */
function modelClass([{ BaseChatModel }, { AIMessageChunk }, { ChatGenerationChunk }]: LcModules) {
  type Messages = Parameters<InstanceType<typeof BaseChatModel>['_generate']>[0];

  return class SwitchboardChatModel extends BaseChatModel {
    private readonly ctx: InProcessContext;
    private readonly settings: ProviderSettings;
    private readonly agentName: string;

    constructor(ctx: InProcessContext, settings: ProviderSettings, agentName: string) {
      super({});
      this.ctx = ctx;
      this.settings = settings;
      this.agentName = agentName;
    }

    // Called by the base constructor, before this class's fields are set.
    _llmType(): string {
      return 'switchboard';
    }

    async _generate(messages: Messages, options: this['ParsedCallOptions']) {
      let text = '';
      for await (const chunk of this._streamResponseChunks(messages, options)) text += chunk.text;
      return { generations: [{ text, message: new AIMessageChunk({ content: text }) }] };
    }

    async *_streamResponseChunks(messages: Messages, _options: this['ParsedCallOptions']) {
      // The provider call gets the conversation LangChain hands the model.
      const conversation: RunMessage[] = messages.map((m, i) => ({
        id: `lc-${i}`,
        role: m.getType() === 'human' ? 'user' : m.getType() === 'ai' ? 'assistant' : m.getType() === 'system' ? 'system' : 'other',
        parts: [{ type: 'text', text: typeof m.content === 'string' ? m.content : m.text }],
      }));
      const inner: InProcessContext = { ...this.ctx, request: { runId: `${this.ctx.request.runId}:model`, messages: conversation } };
      let index = 0;
      const chunk = (fields: ConstructorParameters<typeof AIMessageChunk>[0] & object, text = '') =>
        new ChatGenerationChunk({ text, message: new AIMessageChunk(fields) });
      for await (const e of providerStream(inner, this.settings, this.agentName)) {
        switch (e.type) {
          case 'text-delta':
            yield chunk({ content: e.delta }, e.delta);
            break;
          case 'reasoning-delta':
            yield chunk({ content: '', additional_kwargs: { reasoning_content: e.delta } });
            break;
          case 'tool-input-end':
            yield chunk({
              content: '',
              tool_call_chunks: [
                { id: e.toolCallId, name: e.toolName, args: JSON.stringify(e.input), index: index++, type: 'tool_call_chunk' },
              ],
            });
            break;
          case 'error':
            if (e.fatal) throw new AgentError(e.code ?? 'provider_error', e.message);
            break;
          case 'run-finish': {
            const u = e.usage;
            const fields: ConstructorParameters<typeof AIMessageChunk>[0] & object = {
              content: '',
              response_metadata: { finish_reason: e.rawFinishReason ?? e.finishReason, model_name: this.settings.model },
            };
            if (u?.inputTokens !== undefined || u?.outputTokens !== undefined) {
              const input = u.inputTokens ?? 0;
              const output = u.outputTokens ?? 0;
              fields.usage_metadata = { input_tokens: input, output_tokens: output, total_tokens: u.totalTokens ?? input + output };
            }
            yield chunk(fields);
            break;
          }
        }
      }
    }
  };
}

/** Runs the conversation through a LangChain chat model and decodes its `streamEvents`. */
export async function* langchainStream(
  ctx: InProcessContext,
  settings: ProviderSettings,
  agentName: string,
): AsyncGenerator<CanonicalEvent> {
  const mods = await load();
  const { HumanMessage, AIMessage, SystemMessage } = mods[1];
  const Model = modelClass(mods);
  const model = new Model(ctx, settings, agentName);
  const input: InstanceType<typeof HumanMessage | typeof AIMessage | typeof SystemMessage>[] = [];
  for (const m of ctx.request.messages) {
    const text = messageText(m);
    if (!text.trim()) continue;
    if (m.role === 'user') input.push(new HumanMessage(text));
    else if (m.role === 'assistant') input.push(new AIMessage(text));
    else if (m.role === 'system') input.push(new SystemMessage(text));
  }
  const stream = model.streamEvents(input, { version: 'v2', signal: ctx.signal });
  // LangChain's own serialization ({lc, type, id, kwargs}), as a LangChain app would send its events.
  async function* serialized() {
    for await (const event of stream) yield JSON.parse(JSON.stringify(event)) as object;
  }
  yield* decode(serialized(), 'langchain', decoderOptions(ctx, agentName));
}
