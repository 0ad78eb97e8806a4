/**
 * The `langchain` built-in agent: a real LangChain.js chat model run through `streamEvents`
 * (version v2), decoded by core's `langchain` decoder — the path a LangChain app's events take.
 *
 * The chat model is a small `BaseChatModel` whose `_streamResponseChunks` calls the configured
 * provider (Anthropic, OpenAI or Gemini, whichever key is set) with `fetch` and turns its stream
 * into `AIMessageChunk`s (text, `reasoning_content`, tool call chunks, usage, finish reason). No
 * provider package is needed; `@langchain/core` is, and is loaded only when this agent runs (it is
 * disabled when it cannot be resolved).
 *
 * The conversation reaches the model as LangChain messages (AI messages with their tool calls, a
 * ToolMessage per client output or denial), and the provider request carries the client's frontend
 * tools.
 */
import { type CanonicalEvent, decode } from '@switchboard/core';
import type { ProviderSettings } from '../config/types.ts';
import { AgentError, decoderOptions, type InProcessContext } from '../runner/in-process.ts';
import type { RunMessage } from '../runner/types.ts';
import { resultText, toConversation } from './messages.ts';
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
      // The provider call gets the conversation LangChain hands the model, its tool calls and tool messages included.
      const inner: InProcessContext = {
        ...this.ctx,
        request: { runId: `${this.ctx.request.runId}:model`, messages: fromLangChain(messages), tools: this.ctx.request.tools },
      };
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

type LcMessage = Parameters<InstanceType<LcModules[0]['BaseChatModel']>['_generate']>[0][number];

/** The conversation as LangChain messages: AI messages with their tool calls, a ToolMessage per answer. */
function toLangChain({ HumanMessage, AIMessage, SystemMessage, ToolMessage }: LcModules[1], messages: readonly RunMessage[]): LcMessage[] {
  const { system, items } = toConversation(messages);
  const out: LcMessage[] = system ? [new SystemMessage(system)] : [];
  for (const it of items) {
    if (it.role === 'user') out.push(new HumanMessage(it.text));
    else if (it.role === 'assistant')
      out.push(
        new AIMessage({
          content: it.text,
          tool_calls: it.calls.map((c) => ({ id: c.toolCallId, name: c.toolName, args: objectArgs(c.input), type: 'tool_call' as const })),
        }),
      );
    else
      for (const r of it.results)
        out.push(
          new ToolMessage({
            tool_call_id: r.toolCallId,
            name: r.toolName,
            content: resultText(r.output),
            status: r.isError ? 'error' : 'success',
          }),
        );
  }
  return out;
}

function objectArgs(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/** LangChain's messages back as the run conversation the provider request is built from (tool parts answered by ToolMessages). */
function fromLangChain(messages: readonly LcMessage[]): RunMessage[] {
  const out: { id: string; role: string; parts: Record<string, unknown>[] }[] = [];
  const parts = new Map<string, Record<string, unknown>>();
  messages.forEach((m, i) => {
    const type = m.getType();
    const text = typeof m.content === 'string' ? m.content : m.text;
    if (type === 'tool') {
      const t = m as LcMessage & { tool_call_id?: string; status?: string };
      const part = t.tool_call_id ? parts.get(t.tool_call_id) : undefined;
      if (!part) return;
      if (t.status === 'error') Object.assign(part, { state: 'output-error', errorText: text });
      else Object.assign(part, { state: 'output-available', output: text });
      return;
    }
    const role = type === 'human' ? 'user' : type === 'ai' ? 'assistant' : type === 'system' ? 'system' : 'other';
    const message = { id: `lc-${i}`, role, parts: [{ type: 'text', text }] as Record<string, unknown>[] };
    for (const call of (m as LcMessage & { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? []) {
      if (!call.id) continue;
      const part: Record<string, unknown> = {
        type: 'dynamic-tool',
        toolName: call.name,
        toolCallId: call.id,
        state: 'input-available',
        input: call.args,
      };
      parts.set(call.id, part);
      message.parts.push(part);
    }
    out.push(message);
  });
  return out;
}

/** Runs the conversation through a LangChain chat model and decodes its `streamEvents`. */
export async function* langchainStream(
  ctx: InProcessContext,
  settings: ProviderSettings,
  agentName: string,
): AsyncGenerator<CanonicalEvent> {
  const mods = await load();
  const Model = modelClass(mods);
  const model = new Model(ctx, settings, agentName);
  const input = toLangChain(mods[1], ctx.request.messages);
  const stream = model.streamEvents(input, { version: 'v2', signal: ctx.signal });
  // LangChain's own serialization ({lc, type, id, kwargs}), as a LangChain app would send its events.
  async function* serialized() {
    for await (const event of stream) yield JSON.parse(JSON.stringify(event)) as object;
  }
  yield* decode(serialized(), 'langchain', decoderOptions(ctx, agentName));
}
