/**
 * @switchboard/store — the append-only run log, persisted messages, history in every protocol,
 * replay and resume. SQLite (default, `node:sqlite`), PostgreSQL (`pg`), Redis (`@redis/client`),
 * in-memory (`memory:`, for tests and demos).
 */

export type {
  AgUiHistory,
  AgUiMessageLike,
  CanonicalHistoryItem,
  HistoryOf,
  HistoryOptions,
  HistoryProtocol,
  MessagesSnapshotLike,
  ThinkExtraction,
  TimelineItem,
  ToolCallData,
  ToolResultData,
  UIMessageLike,
  UIPartLike,
} from './history.ts';
export {
  canonicalHistory,
  emptyHistory,
  extractThinkTags,
  HISTORY_PROTOCOLS,
  isHistoryProtocol,
  loadHistory,
  SUPERSEDED_KEY,
  supersededOf,
  supersedeMessages,
  toAgUiMessages,
  toAgUiSnapshot,
  toTimeline,
  toUIMessages,
  toUIParts,
} from './history.ts';
export { upToTerminal } from './local-tails.ts';
export type { MemoryStoreOptions } from './memory.ts';
export { MemoryData, MemoryStore, openMemoryStore } from './memory.ts';
export type { AnyStore, OpenStoreOptions } from './open.ts';
export { openPostgresStore, openRedisStore, openStore, sqliteOptionsOf, sqlitePathOf } from './open.ts';
// The PostgreSQL and Redis classes load their clients: import them from `@switchboard/store/postgres`
// and `@switchboard/store/redis` (the openers above load them lazily).
export type { PostgresPool, PostgresStore, PostgresStoreOptions } from './postgres.ts';
export type * from './projection.ts';
export { isTerminal, mergeProviderMetadata, Projector, project } from './projection.ts';
export type { RecordOptions } from './record.ts';
export { recordRun } from './record.ts';
export type { RedisStore, RedisStoreOptions } from './redis.ts';
export type { ReplayClock, ReplayOptions } from './replay.ts';
export { realClock, replay, replayEvents } from './replay.ts';
export type { ResumeOptions } from './resume.ts';
export {
  activeRun,
  latestRun,
  resumeEvents,
  resumeSse,
  resumeSseResponse,
  STORE_FAULT_CODE,
  StoreReadError,
  storeRead,
  storeReads,
  tailPages,
} from './resume.ts';
export type { SqliteStoreOptions } from './sqlite.ts';
export { defaultSqlitePath, openSqliteStore, SQLITE_SCHEMA_VERSION, SqliteStore } from './sqlite.ts';
export type {
  AppendResult,
  BaseStoreOptions,
  Chat,
  ChatInit,
  ListOptions,
  ReadOptions,
  RecoverOptions,
  Run,
  RunStatus,
  StartRunInit,
  Store,
  StoreErrorCode,
  TailOptions,
  UserMessageInit,
} from './store.ts';
export { BaseStore, importOptional, StoreError } from './store.ts';
