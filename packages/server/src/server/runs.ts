/**
 * The runs this instance is executing. Starting a run records the user message, starts the agent
 * through the runner and *pumps* its canonical events into the store in the background: the agent
 * never waits for a client, and a client only ever reads the store (its tail), so any number of
 * clients can follow a run, from any instance, and resume it byte for byte.
 *
 * A run ends when the agent ends, or when it is aborted: `abort(runId)` (the client that started
 * it went away, an explicit abort request, a new run superseding it, shutdown). The runner then
 * kills the agent's process (SIGTERM, SIGKILL after its grace period) and ends the run with
 * `run-abort`, so the partial message is persisted as `aborted`. A run the pump (pump.ts) could not
 * finish (the store failed) is interrupted, so nothing stays `running`. While runs are starting, the
 * runs already streaming wait (start-gate.ts): first bytes before more bytes.
 *
 * One run at a time per chat: a new run in a chat first aborts the one in progress (here, or on
 * another instance through the Redis control channel) — it *supersedes* it — and then starts with
 * the store's `exclusive` check, atomic with the insert: of starts that race (simultaneous
 * requests, on one instance or several), exactly one gets in and the others answer 409
 * `run_in_progress`. A chat's runs never overlap.
 *
 * Leases: every run started here holds a lease (`runLeaseMs`) that this instance renews every third
 * of it. Every instance sweeps the store as often for runs whose lease ended — their instance died
 * (kill -9, a lost machine) — and interrupts them: their followers get an `interrupted` error and
 * the finish, the history shows the message interrupted, and the chat takes a new message.
 *
 * Per-caller cap: one caller (a token's name, or the client address when authentication is off)
 * may have `maxRunsPerCaller` runs executing on this instance at once; more answer 429 with
 * `Retry-After`.
 */
import { randomUUID } from 'node:crypto';
import type { EventInit, JsonObject } from '@switchboard/core';
import { isTerminal, type Run, type StartRunInit, type Store, StoreError, type UserMessageInit } from '@switchboard/store';

import type { ClientTool, ResumeAnswer, RunMessage, RunOptions } from '../runner/types.ts';
import type { AgentRegistry } from './agent-registry.ts';
import { canSee, ownerOf, type Principal } from './auth.ts';
import type { RedisFanout } from './fanout.ts';
import { type PumpContext, pump } from './pump.ts';
import { SignalMap, type VersionSignal } from './signal.ts';
import { StartGate } from './start-gate.ts';
import { UnstoredEnds } from './unstored-ends.ts';

/** A run executing here. */
export interface LocalRun {
  runId: string;
  chatId: string;
  agent: string;
  messageId: string;
  /** The agent's process id (undefined for in-process agents). */
  readonly pid: number | undefined;
  /** Settles when the agent's process has exited (at once for in-process agents). */
  readonly exited: Promise<unknown>;
  /** Settles when the run has ended and everything is stored. */
  readonly done: Promise<void>;
  abort(reason: string): void;
}

/** What a run is started with. */
export interface StartRunInput {
  chatId: string;
  /** Default: a random UUID. */
  runId?: string;
  agent: string;
  /** The conversation the agent answers (AI SDK UIMessages). */
  messages: readonly RunMessage[];
  /** The user message to store (the last one of `messages`, usually). */
  userMessage?: UserMessageInit;
  principal: Principal;
  /** Who the per-caller cap counts this run against (default: the principal's name, else `anonymous`). */
  caller?: string;
  /** Title of a chat this creates (default: the start of the user message). */
  title?: string;
  /**
   * A continuation run (continuation.ts): the assistant message it continues (its run-start.messageId,
   * so the store adds to that message) and the answers it opens with.
   */
  continues?: { messageId: string; prelude: readonly EventInit[] };
  /** Frontend tools the client declared (RunRequest.tools). */
  tools?: readonly ClientTool[];
  /** Answers to interrupts for the agent (RunRequest.resume). */
  resume?: readonly ResumeAnswer[];
  /**
   * `null`: the caller just read the chat and it did not exist, so it is not read again: it is
   * created with the run, in one store write (one created meanwhile is still caught: the start then
   * conflicts, and it is checked as an existing chat).
   */
  knownChat?: null;
}

/** Why a run could not start, as an HTTP status and a message. */
export class RunStartError extends Error {
  readonly status: 400 | 404 | 409 | 429 | 503;
  readonly code: string;
  /** With 429: when to try again (ms). */
  readonly retryAfterMs: number | undefined;
  constructor(status: 400 | 404 | 409 | 429 | 503, code: string, message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'RunStartError';
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}

/** Options of the run manager. */
export interface RunManagerOptions {
  store: Store;
  agents: AgentRegistry;
  fanout?: RedisFanout;
  runOptions?: RunOptions;
  onError?: (err: unknown) => void;
  /** How long to wait for a run on another instance to end when a new run supersedes it (ms, default 10 000). */
  supersedeTimeoutMs?: number;
  /** A run on another instance with no append for this long is taken as dead and interrupted (ms, default 5 min). */
  staleRunMs?: number;
  /** Lease of the runs started here (ms, default 6000; 0: no leases, no sweep). Renewed and swept every third of it. */
  leaseMs?: number;
  /** This instance's id in the leases (default: a random UUID). */
  instanceId?: string;
  /** Runs one caller may have executing here at once (default 0: unlimited). */
  maxRunsPerCaller?: number;
  /** The waits between retries of an append the store failed (ms; default pump.ts's APPEND_RETRY_MS, about 11 s in all). */
  appendRetryMs?: readonly number[];
  /** How often the ends the store did not take are retried when there are no leases (ms, default 1000). */
  unstoredRetryMs?: number;
  now?: () => number;
}

const TITLE_CHARS = 80;
/** The store's `exclusive` conflict (another run of the chat is running). */
const IN_PROGRESS = /has a run in progress/;

/** The metadata of a chat a run creates: its owner and agent. */
function chatMetadata(principal: Principal, agent: string | undefined): JsonObject | undefined {
  const owner = ownerOf(principal);
  const metadata = { ...(owner !== undefined ? { owner } : {}), ...(agent !== undefined ? { agent } : {}) };
  return Object.keys(metadata).length ? metadata : undefined;
}

/** The store's conflict of a new chat whose id is taken after all. */
const CHAT_EXISTS = /^chat .* already exists$/s;

function titleOf(text: string | undefined): string | undefined {
  const t = text?.replace(/\s+/g, ' ').trim();
  if (!t) return undefined;
  return t.length > TITLE_CHARS ? `${t.slice(0, TITLE_CHARS - 1)}…` : t;
}

/** Starts, tracks and aborts the runs of this instance. */
export class RunManager {
  private readonly store: Store;
  private readonly agents: AgentRegistry;
  private readonly fanout: RedisFanout | undefined;
  private readonly runOptions: RunOptions;
  private readonly onError: (err: unknown) => void;
  private readonly supersedeTimeoutMs: number;
  private readonly staleRunMs: number;
  private readonly now: () => number;
  private readonly local = new Map<string, LocalRun>();
  private readonly chats = new SignalMap();
  private stopControl: (() => Promise<void>) | undefined;
  private closing = false;
  /** This instance's id, the holder of its runs' leases. */
  readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly maxRunsPerCaller: number;
  private readonly callers = new Map<string, number>();
  /** Runs starting: the runs already streaming wait for their first commits (start-gate.ts). */
  private readonly gate = new StartGate();
  /** What every run's pump uses of this manager (pump.ts). */
  private readonly pumpContext: PumpContext;
  private leaseTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** Runs that ended here whose end the store did not take, stored once it answers (unstored-ends.ts). */
  private readonly unstored: UnstoredEnds;

  constructor(options: RunManagerOptions) {
    this.store = options.store;
    this.agents = options.agents;
    this.fanout = options.fanout;
    this.runOptions = options.runOptions ?? {};
    this.onError = options.onError ?? ((err) => console.error(err));
    this.supersedeTimeoutMs = options.supersedeTimeoutMs ?? 10_000;
    this.staleRunMs = options.staleRunMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.instanceId = options.instanceId ?? randomUUID();
    this.leaseMs = options.leaseMs ?? 6000;
    this.maxRunsPerCaller = options.maxRunsPerCaller ?? 0;
    this.unstored = new UnstoredEnds(
      this.store,
      (chatId) => this.chats.bump(chatId),
      this.leaseMs > 0 ? undefined : (options.unstoredRetryMs ?? 1000),
    );
    this.pumpContext = {
      store: this.store,
      gate: this.gate,
      onError: this.onError,
      ...(options.appendRetryMs ? { retryMs: options.appendRetryMs } : {}),
      endNotStored: (runId, reason) => this.unstored.add(runId, this.local.get(runId)?.chatId ?? '', reason),
    };
  }

  /** Listens for aborts sent by other instances; starts renewing leases and sweeping for expired ones. */
  async init(): Promise<void> {
    if (this.leaseMs > 0) {
      this.leaseTimer = setInterval(() => void this.tickLeases(), Math.max(10, Math.floor(this.leaseMs / 3)));
      this.leaseTimer.unref();
    }
    if (!this.fanout) return;
    this.stopControl = await this.fanout.subscribe('control', (text) => {
      try {
        const m = JSON.parse(text) as { abort?: unknown; reason?: unknown };
        if (typeof m.abort === 'string') this.local.get(m.abort)?.abort(typeof m.reason === 'string' ? m.reason : 'aborted');
      } catch {
        // Not ours.
      }
    });
  }

  /** The run with this id, when it executes here. */
  get(runId: string): LocalRun | undefined {
    return this.local.get(runId);
  }

  /** Runs executing here. */
  get size(): number {
    return this.local.size;
  }

  /** Runs that ended here whose end is not stored yet (the store failed): retried until it answers. */
  get unstoredEnds(): readonly string[] {
    return this.unstored.ids;
  }

  /** Renews the leases of the runs executing here, then interrupts runs of other instances whose lease ended. */
  private tickLeases(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        await this.unstored.storeAll();
        if (this.local.size > 0) await this.store.renewLeases(this.instanceId, [...this.local.keys()], this.now() + this.leaseMs);
        await this.sweep();
      } catch (err) {
        if (!this.closing) this.onError(err);
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /**
   * Interrupts the runs whose lease has ended (their instance is gone), except this instance's own
   * (it is alive: a late renewal is not a death). Returns their ids.
   */
  async sweep(): Promise<string[]> {
    return this.store.recoverRuns({
      expiredLeases: true,
      exceptHolder: this.instanceId,
      reason: 'The run was interrupted: its server instance stopped.',
    });
  }

  /**
   * A signal bumped whenever a run starts in the chat (here, or on another instance through Redis).
   * Call `release` when done.
   */
  async watchChat(chatId: string): Promise<{ signal: VersionSignal; release: () => Promise<void> }> {
    const held = this.chats.acquire(chatId);
    const stop = this.fanout ? await this.fanout.subscribe(`chat:${chatId}`, () => this.chats.bump(chatId)) : undefined;
    return {
      signal: held.signal,
      release: async () => {
        held.release();
        await stop?.();
      },
    };
  }

  /**
   * Makes sure the chat exists and `principal` may write to it: creates it (owned by the principal)
   * when it does not exist. Fails with 404 when it belongs to someone else. The chat remembers the
   * agent of its latest run (`metadata.agent`), so a client reopening it talks to the same agent.
   * Returns true when it created the chat (it has no runs yet).
   */
  async ensureChat(chatId: string, principal: Principal, title?: string, agent?: string): Promise<boolean> {
    const existing = await this.store.getChat(chatId);
    if (existing) {
      if (!canSee(principal, existing)) throw new RunStartError(404, 'not_found', `No chat ${chatId}`);
      if (agent !== undefined && existing.metadata?.agent !== agent)
        await this.store.updateChat(chatId, { metadata: { ...existing.metadata, agent } });
      return false;
    }
    const metadata = chatMetadata(principal, agent);
    try {
      await this.store.createChat({
        id: chatId,
        ...(title ? { title } : {}),
        ...(metadata ? { metadata } : {}),
      });
    } catch (err) {
      // Created meanwhile by another request: whose is it?
      if (!(err instanceof StoreError && err.code === 'conflict')) throw err;
      if (!canSee(principal, await this.store.getChat(chatId))) throw new RunStartError(404, 'not_found', `No chat ${chatId}`);
      return false;
    }
    return true;
  }

  /** Ends the chat's run in progress, if any, before another one starts. */
  private async settle(chatId: string): Promise<void> {
    const runs = await this.store.listRuns(chatId);
    for (const run of runs) {
      if (run.status !== 'running') continue;
      const here = this.local.get(run.id);
      if (here) {
        here.abort('superseded by a new run in the chat');
        await here.done;
        if (!this.unstored.has(run.id)) continue;
      }
      if (this.unstored.has(run.id)) {
        // It ended here, but the store has not taken its end yet: try again now.
        if (await this.unstored.store(run.id)) continue;
        throw new RunStartError(
          503,
          'store_unavailable',
          `Chat ${chatId} has a run (${run.id}) that ended on this server, but the store has not taken its end yet: try again shortly`,
          1000,
        );
      }
      if (this.fanout) {
        this.fanout.publish('control', JSON.stringify({ abort: run.id, reason: 'superseded by a new run in the chat' }));
        if (await this.waitEnded(run, this.supersedeTimeoutMs)) continue;
      }
      if (this.now() - run.updatedAt >= this.staleRunMs) {
        await this.store.interruptRun(run.id, 'The run was interrupted: its server is gone.');
        continue;
      }
      throw new RunStartError(409, 'run_in_progress', `Chat ${chatId} has a run in progress (${run.id}) on another server instance`);
    }
  }

  /** Waits until `run` has ended (true) or `timeoutMs` passed (false). */
  private async waitEnded(run: Run, timeoutMs: number): Promise<boolean> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), timeoutMs);
    try {
      for await (const e of this.store.tail(run.id, { after: run.lastSeq, signal: ctl.signal })) if (isTerminal(e)) return true;
      return (await this.store.getRun(run.id))?.status !== 'running';
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Starts a run: stores the user message, starts the agent and pumps its events into the store.
   * Resolves once the run is registered (its tail can be read).
   *
   * @throws RunStartError for an unknown / disabled agent, another owner's chat, a run that cannot be
   *   superseded, or a run id that is taken.
   */
  async start(input: StartRunInput): Promise<LocalRun> {
    if (this.closing) throw new RunStartError(503, 'shutting_down', 'The server is shutting down');
    const why = this.agents.unavailable(input.agent);
    if (why) throw new RunStartError(this.agents.has(input.agent) ? 503 : 400, 'agent_unavailable', why);
    const caller = input.caller ?? ('name' in input.principal ? `token:${input.principal.name}` : 'anonymous');
    if (this.maxRunsPerCaller > 0 && (this.callers.get(caller) ?? 0) >= this.maxRunsPerCaller)
      throw new RunStartError(
        429,
        'too_many_runs',
        `Too many runs in progress: at most ${this.maxRunsPerCaller} at once per caller; wait for one to finish`,
        1000,
      );
    // Counted from here, so simultaneous starts cannot all pass the check.
    this.callers.set(caller, (this.callers.get(caller) ?? 0) + 1);
    const firstCommit = this.gate.begin();
    let started = false;
    try {
      const entry = await this.startCounted(input, firstCommit);
      started = true;
      void entry.done.then(() => this.release(caller));
      return entry;
    } finally {
      if (!started) {
        firstCommit();
        this.release(caller);
      }
    }
  }

  private release(caller: string): void {
    const n = (this.callers.get(caller) ?? 1) - 1;
    if (n <= 0) this.callers.delete(caller);
    else this.callers.set(caller, n);
  }

  private async startCounted(input: StartRunInput, firstCommit: () => void): Promise<LocalRun> {
    const title = input.title ?? titleOf(input.userMessage?.content);
    // A chat the caller has just seen missing is created with the run, in one store write.
    const fresh = input.knownChat === null;
    const created = fresh || (await this.ensureChat(input.chatId, input.principal, title, input.agent));
    // A client's run id taken in this chat (the caller sees that run) is a conflict; taken in a chat
    // the caller may not see, it must look unused: the run gets an id of its own.
    const taken = input.runId !== undefined ? await this.store.getRun(input.runId) : undefined;
    if (taken && taken.chatId === input.chatId) throw new RunStartError(409, 'run_exists', `A run with id ${input.runId} already exists`);
    const runId = taken ? randomUUID() : (input.runId ?? randomUUID());
    // A chat created just now has no run to supersede (a racing start is caught by `exclusive` below).
    if (!created) await this.settle(input.chatId);

    const messageId = input.continues?.messageId ?? `msg_${randomUUID().replace(/-/g, '')}`;
    const metadata = chatMetadata(input.principal, input.agent);
    const init: StartRunInit = {
      chatId: input.chatId,
      runId,
      messageId,
      exclusive: true,
      // Both made here from random UUIDs: the store need not look them up.
      ...(runId !== input.runId && input.continues === undefined ? { newIds: true } : {}),
      ...(this.leaseMs > 0 ? { lease: { holder: this.instanceId, until: this.now() + this.leaseMs } } : {}),
      ...(input.userMessage ? { userMessage: input.userMessage } : {}),
      ...(title ? { title } : {}),
      ...(fresh ? { newChat: metadata ? { metadata } : {} } : {}),
    };
    try {
      try {
        await this.store.startRun(init);
      } catch (err) {
        if (!(init.newChat && err instanceof StoreError && err.code === 'conflict' && CHAT_EXISTS.test(err.message))) throw err;
        // Created meanwhile by another request: start as in any existing chat (whose is it? a run to supersede?).
        delete init.newChat;
        if (!(await this.ensureChat(input.chatId, input.principal, title, input.agent))) await this.settle(input.chatId);
        await this.store.startRun(init);
      }
    } catch (err) {
      if (err instanceof StoreError && err.code === 'conflict' && IN_PROGRESS.test(err.message))
        throw new RunStartError(
          409,
          'run_in_progress',
          `Chat ${input.chatId} has a run in progress: another request started one at the same time`,
        );
      throw err;
    }

    const ctl = new AbortController();
    const run = this.agents.run(
      input.agent,
      {
        runId,
        chatId: input.chatId,
        messageId,
        messages: input.messages,
        signal: ctl.signal,
        ...(input.tools?.length ? { tools: input.tools } : {}),
        ...(input.resume?.length ? { resume: input.resume } : {}),
        ...(input.continues?.prelude.length ? { prelude: input.continues.prelude } : {}),
      },
      this.runOptions,
    );
    const { promise: done, resolve } = Promise.withResolvers<void>();
    const entry: LocalRun = {
      runId,
      chatId: input.chatId,
      agent: input.agent,
      messageId,
      get pid() {
        return run.pid;
      },
      exited: run.exited,
      done,
      abort: (reason) => {
        if (!ctl.signal.aborted) ctl.abort(reason);
      },
    };
    this.local.set(runId, entry);
    void pump(this.pumpContext, runId, run, ctl.signal, firstCommit, () => {
      this.local.delete(runId);
      resolve();
    });
    this.chats.bump(input.chatId);
    this.fanout?.publish(`chat:${input.chatId}`, JSON.stringify({ runId }));
    return entry;
  }

  /**
   * Aborts a run: here when it executes here, else through Redis to the instance that runs it.
   * Returns false when it is not running anywhere this instance can reach.
   */
  async abort(runId: string, reason: string): Promise<boolean> {
    const here = this.local.get(runId);
    if (here) {
      here.abort(reason);
      return true;
    }
    // Ended here already, its end not stored yet: storing it is the abort.
    if (this.unstored.has(runId)) return this.unstored.store(runId);
    const run = await this.store.getRun(runId);
    if (run?.status !== 'running') return false;
    if (!this.fanout) return false;
    this.fanout.publish('control', JSON.stringify({ abort: runId, reason }));
    return true;
  }

  /** Aborts the chat's runs executing here and waits for them to end (before deleting a chat). */
  async abortChat(chatId: string, reason: string): Promise<void> {
    const mine = [...this.local.values()].filter((r) => r.chatId === chatId);
    for (const r of mine) r.abort(reason);
    await Promise.all(mine.map((r) => r.done));
  }

  /** Aborts every run executing here and waits until they are stored; no new run starts after this. */
  async close(reason = 'the server is shutting down'): Promise<void> {
    this.closing = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.unstored.close();
    await this.sweeping;
    const all = [...this.local.values()];
    for (const r of all) r.abort(reason);
    await Promise.all(all.map((r) => r.done));
    this.chats.bumpAll();
    await this.stopControl?.();
  }
}
