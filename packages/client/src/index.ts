/**
 * @switchboard/client — framework-agnostic, browser-compatible client for Switchboard streams:
 * readers into canonical events, a linear message accumulator, a linear AG-UI reducer, resumable
 * SSE and WebSocket clients, and the thinking timeline.
 *
 * `ResumableHttpAgent` (a subclass of `@ag-ui/client`'s HttpAgent) is in `@switchboard/client/ag-ui`,
 * so this entry point never loads `@ag-ui/client`.
 */

/** Core's reducers and text helpers, re-exported so a browser app needs only this package. */
export type {
  AgUiEventLike,
  AgUiMessageLike,
  AgUiReducer,
  AgUiReducerOptions,
  AgUiToolCall,
  AiSdkChunkLike,
  AiSdkReducer,
  AiSdkReducerOptions,
  JsonPatchOperation,
  ThinkSplit,
  UIMessageLike,
  UIMessagePartLike,
  WorkCounter,
} from '@switchboard/core';
export {
  applyJsonPatch,
  createAgUiReducer,
  createAiSdkReducer,
  createWorkCounter,
  JsonPatchError,
  jsonEquals,
  splitThinkTags,
  TextBuffer,
  ThinkSplitter,
} from '@switchboard/core';
export {
  type AccumulatedMessage,
  type CustomPart,
  createMessageAccumulator,
  type DataPart,
  type ErrorInfo,
  type ErrorPart,
  elapsedMs,
  type FilePart,
  type MessageAccumulator,
  type MessageAccumulatorOptions,
  type MessagePart,
  type MessageStatus,
  mergeProviderMetadata,
  type ReasoningPart,
  type SourcePart,
  type StepInfo,
  type StepPart,
  type StepStartPart,
  type SubagentInfo,
  type SubagentPart,
  type TextPart,
  type TodosPart,
  type ToolApproval,
  type ToolPart,
  type ToolState,
  type UiPart,
} from './accumulator.ts';
export {
  type ByteSource,
  bytesOf,
  createCanonicalReader,
  createFrameReader,
  createObjectReader,
  createReader,
  HttpStatusError,
  ReadError,
  type ReadOptions,
  type ReadProtocol,
  readStream,
  readValues,
  type StreamSource,
} from './read.ts';
export {
  createResumableFetch,
  defaultResumeUrl,
  isTerminalFrame,
  type ReconnectInfo,
  type ResumableEventStream,
  type ResumeContext,
  type ResumeOptions,
  resumableFetch,
} from './resume.ts';
export { createSseFrameParser, formatSseFrame, isSseFrame, type SseFrame, type SseFrameHandlers } from './sse.ts';
export {
  buildThinkingTimeline,
  createTimelineBuilder,
  isTimelineItem,
  type TimelineBuilder,
  type TimelineItem,
  type TimelineOptions,
  type ToolCallData,
  type ToolResultData,
} from './timeline.ts';
export {
  createWsClient,
  frameOf,
  type WebSocketFactory,
  type WebSocketLike,
  type WsClient,
  type WsClientOptions,
  type WsClientStatus,
  type WsFrame,
} from './ws-client.ts';
