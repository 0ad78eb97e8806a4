/**
 * @switchboard/core — any agent framework in, one canonical lossless event model, any UI protocol out.
 */

export type { ConverterOptions, DecodeInput, SseResponseInit } from './api.ts';
export { createConverter, createSseResponse, decode, encode, jsonlFramer, sseFramer, toSse } from './api.ts';
export type { Frame, FramingOptions } from './codec/framing.ts';
export { createFramer, DEFAULT_MAX_LINE_LENGTH, describe as describeLocation } from './codec/framing.ts';
export type { SseMessage } from './codec/sse.ts';
export { formatSse, formatSseComment } from './codec/sse.ts';
export { utf8Stream } from './codec/utf8-stream.ts';
export type { Framework } from './frameworks.ts';
export { createDecoder, detectFramework, FRAMEWORKS, isFramework, thinkTagsOf } from './frameworks.ts';
export { anthropicFinishReason, anthropicUsage, createAnthropicDecoder } from './inputs/anthropic.ts';
export type { AgentDialect } from './inputs/claude.ts';
export { createClaudeAgentDecoder, createDeepAgentsDecoder } from './inputs/claude.ts';
export { createClaudeAgentSdkDecoder, detectClaudeAgentSdk } from './inputs/claude-agent-sdk.ts';
export type { Decoder } from './inputs/decoder.ts';
export { framed } from './inputs/decoder.ts';
export { createGeminiDecoder, detectGemini } from './inputs/gemini.ts';
export { createGeminiInteractionsDecoder, detectGeminiInteractions } from './inputs/gemini-interactions.ts';
export { createGeminiSimpleDecoder } from './inputs/gemini-simple.ts';
export { createLangchainDecoder, detectLangchain } from './inputs/langchain.ts';
export { createLanggraphDecoder, detectLanggraph } from './inputs/langgraph.ts';
export { createOpenAIAgentsDecoder, detectOpenAIAgents } from './inputs/openai-agents.ts';
export { createOpenAIChatDecoder, detectOpenAIChat, openaiChatFinishReason, openaiChatUsage } from './inputs/openai-chat.ts';
export {
  createOpenAIResponsesDecoder,
  createResponsesCore,
  detectOpenAIResponses,
  openaiResponsesFinishReason,
  openaiResponsesUsage,
} from './inputs/openai-responses.ts';
export { createOpenAISimpleDecoder } from './inputs/openai-simple.ts';
export { createSmolagentsDecoder, detectSmolagents } from './inputs/smolagents.ts';
export {
  createOpenAIChatThinkDecoder,
  createThinkDecoder,
  createThinkTextReader,
  type ThinkDecoderOptions,
  withThinkTags,
} from './inputs/think.ts';
export type { Machine, Source } from './machine.ts';
export { pipe, run, toTransformStream } from './machine.ts';
export type { HistoryOptions } from './message/history-options.ts';
export * from './message/index.ts';
export type { DecoderOptions } from './model/emitter.ts';
export { Emitter } from './model/emitter.ts';
export type * from './model/events.ts';
export { guardEncoder } from './model/guard-encoder.ts';
export type { Inspection, Removed } from './model/hostile.ts';
export { clean as cleanValue, idProblem, inspect as inspectValue, MAX_DEPTH, tooDeepAt } from './model/hostile.ts';
export { ENCRYPTED_REASONING_KEYS, encryptedReasoningOf, mergeProviderMetadata } from './model/metadata.ts';
export { type CloseOptions, OpenSpans } from './model/open-spans.ts';
export {
  type MessageSummary,
  messageSummaryMetadata,
  type RunMessageStatus,
  RunSummary,
} from './model/run-summary.ts';
export { todoStatus, toTodos } from './model/todos.ts';
export { addUsage, sumCounts, USAGE_COUNTS, type UsageCounts, usageOf } from './model/usage.ts';
export { CANONICAL_VERSION } from './model/version.ts';
export {
  CITATION_KINDS,
  FINISH_REASONS,
  type FinishReasonName,
  finishReasonFrom,
  isFinishReason,
  isPatchOperation,
  isStepKind,
  isTodoChange,
  isTodoStatus,
  PATCH_OPERATIONS,
  type PatchOperation,
  SOURCE_KINDS,
  STEP_KINDS,
  type StepKind,
  TODO_CHANGES,
  TODO_STATUSES,
  type TodoChange,
  type TodoStatus,
} from './model/vocabulary.ts';
export type { EncoderOptions, FrameOf, FrameTypes, Protocol, ProtocolSpec } from './outputs/index.ts';
export { createEncoder, isProtocol, PROTOCOLS } from './outputs/index.ts';
export type { FrameId, SseEncoderOptions } from './outputs/sse.ts';
export { createSseEncoder, formatFrameId, parseFrameId } from './outputs/sse.ts';
export type { AgUiEncoderOptions } from './protocols/ag-ui/encoder.ts';
export { AG_UI_SSE_HEADERS, createAgUiEncoder } from './protocols/ag-ui/encoder.ts';
export {
  type AgUiHistory,
  type AgUiHistoryOptions,
  agUiOfAssistant,
  agUiStateOf,
  toAgUiHistory,
  toAgUiMessages,
} from './protocols/ag-ui/history.ts';
export { createAgUiDecoder, detectAgUi } from './protocols/ag-ui/reader.ts';
export {
  type AgUiEventLike,
  type AgUiMessageLike,
  type AgUiReducer,
  type AgUiReducerOptions,
  type AgUiToolCall,
  createAgUiReducer,
} from './protocols/ag-ui/reducer.ts';
export type { AgUiEvent } from './protocols/ag-ui/schema.ts';
export type { AiSdkChunk, AiSdkCitation, AiSdkEncoderOptions, SourceLike } from './protocols/ai-sdk/encoder.ts';
export { AI_SDK_SSE_HEADERS, createAiSdkEncoder, toAiSdkCitation, toAiSdkSource } from './protocols/ai-sdk/encoder.ts';
export {
  createUIMessageView,
  toUIMessage,
  toUIMessages,
  toUIParts,
  toUIUserMessage,
  type UIMessageView,
} from './protocols/ai-sdk/history.ts';
export { type AiSdkDecoderOptions, createAiSdkDecoder, detectAiSdk } from './protocols/ai-sdk/reader.ts';
export {
  type AiSdkChunkLike,
  type AiSdkReducer,
  type AiSdkReducerOptions,
  createAiSdkReducer,
  type UIMessageLike,
  type UIMessagePartLike,
} from './protocols/ai-sdk/reducer.ts';
export { createCanonicalEncoder } from './protocols/canonical/encoder.ts';
export { createCanonicalDecoder, createCanonicalReader, isCanonicalEvent } from './protocols/canonical/reader.ts';
export type { DsAgentEncoderOptions, DsAgentRunMessage } from './protocols/dsagent/encoder.ts';
export { createDsAgentEncoder } from './protocols/dsagent/encoder.ts';
export { type DsAgentHistoryMessage, type DsAgentUserMessage, dsAgentOfAssistant, toDsAgentMessages } from './protocols/dsagent/history.ts';
export { createDsAgentDecoder, detectDsAgent } from './protocols/dsagent/reader.ts';
export {
  createTimelineView,
  extractThinkTags,
  type ThinkExtraction,
  type TimelineView,
  type TimelineViewOptions,
  timelineOfAssistant,
  toTimeline,
} from './protocols/timeline/history.ts';
export type { TimelineItem, ToolCallData, ToolResultData } from './protocols/timeline/schema.ts';
export type { WsEncoderOptions, WsEvent } from './protocols/ws/encoder.ts';
export { createWsEncoder } from './protocols/ws/encoder.ts';
export { createWsDecoder, detectWs } from './protocols/ws/reader.ts';
export { BlockAssembler } from './transforms/blocks.ts';
export { applyJsonPatch, JsonPatchError, type JsonPatchOperation, jsonEquals } from './transforms/json-patch.ts';
export type { PartialJson } from './transforms/partial-json.ts';
export { parsePartialJson } from './transforms/partial-json.ts';
export { createWorkCounter, TextBuffer, type WorkCounter } from './transforms/text-buffer.ts';
export {
  createThinkTagExtractor,
  splitThinkTags,
  type ThinkSegment,
  type ThinkSplit,
  ThinkSplitter,
  type ThinkTagOptions,
} from './transforms/think-tags.ts';
