/** What every protocol's history takes: how the stored messages are shown. */
export interface HistoryOptions {
  /** providerMetadata / metadata key for the reasoning variant and our fields (default `switchboard`, like the encoders). */
  namespace?: string;
  /** Include reasoning (default true). */
  sendReasoning?: boolean;
  /** Include sources and citations (default true). */
  sendSources?: boolean;
  /**
   * AI SDK: add `metadata[namespace]` (runId, persistenceState, status, model, usage, stopReason,
   * durationMs) to assistant messages (default true). False gives exactly the live message metadata.
   */
  metadata?: boolean;
  /**
   * Include assistant messages whose run is still streaming (default true; the store's `loadHistory`
   * filters on it). An AI SDK client that calls `resumeStream()` after loading history wants them left
   * out: the resumed stream replays the whole message, and would otherwise be appended to the partial one.
   */
  includePending?: boolean;
}
