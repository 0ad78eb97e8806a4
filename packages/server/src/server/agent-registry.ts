/**
 * The agents a gateway can run: the configured ones (config file agents and built-ins, see
 * config/), plus in-process agents given in code (`AppOptions.agents`, and the legacy
 * `AppOptions.agent` factory of agent lines). All of them run through the runner, so they share
 * its contract: limits, aborts, clean ends.
 */
import { decode, type Framework } from '@switchboard/core';

import type { AgentEvent, AgentFactory } from '../agents/agent.ts';
import { lastUserText } from '../agents/messages.ts';
import { runAgent } from '../agents/run.ts';
import type { AgentDefinition, SwitchboardConfig } from '../config/types.ts';
import { AgentError, decoderOptions, type InProcessAgent, runInProcess } from '../runner/in-process.ts';
import { type AgentLimits, type AgentRun, DEFAULT_LIMITS, type RunOptions, type RunRequest } from '../runner/types.ts';

/** An agent given in code. */
export interface InProcessAgentSpec {
  name: string;
  description?: string;
  /** Shown in `GET /api/agents` and recorded as the run's provider (default `auto`). */
  framework?: Framework | 'auto';
  /** Its limits (default: the runner's defaults). */
  limits?: Partial<AgentLimits>;
  /** Canonical events of one run (see runner/in-process.ts). */
  run: InProcessAgent;
}

/** What `GET /api/agents` shows of an agent. */
export interface AgentInfo {
  name: string;
  description?: string;
  framework: string;
  enabled: boolean;
  disabledReason?: string;
}

type Entry =
  | { kind: 'configured'; definition: AgentDefinition }
  | { kind: 'code'; spec: InProcessAgentSpec; limits: AgentLimits; framework: Framework | 'auto' };

/** The name the legacy `agent` factory is registered under. */
export const LEGACY_AGENT_NAME = 'default';

/** Wraps an agent-line factory (lines through the `claude` decoder) as an in-process agent. */
export function fromAgentFactory(name: string, factory: AgentFactory, onError?: (err: unknown) => void): InProcessAgentSpec {
  return {
    name,
    description: 'The agent given to createApp.',
    framework: 'claude',
    run: (ctx) => {
      const messages = ctx.request.messages;
      const lines = factory({
        prompt: lastUserText(messages),
        messages,
        signal: ctx.signal,
        ...(ctx.request.chatId !== undefined ? { chatId: ctx.request.chatId } : {}),
      });
      // A factory that throws: the client reads why, the app's onError gets the error itself.
      async function* guarded(): AsyncGenerator<AgentEvent> {
        try {
          yield* lines;
        } catch (err) {
          onError?.(err);
          throw new AgentError('agent_failed', `The agent failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      }
      return decode(guarded(), 'claude', decoderOptions(ctx, name));
    },
  };
}

/** Agents by name. */
export class AgentRegistry {
  private readonly entries = new Map<string, Entry>();
  /** The agent used when a request names none. */
  readonly defaultAgent: string;

  constructor(config: SwitchboardConfig, extra: readonly InProcessAgentSpec[] = [], defaultAgent?: string) {
    for (const spec of extra) {
      this.entries.set(spec.name, {
        kind: 'code',
        spec,
        limits: {
          timeoutMs: config.server.limits.runTimeMs ?? DEFAULT_LIMITS.timeoutMs,
          idleTimeoutMs: config.server.limits.idleTimeoutMs ?? DEFAULT_LIMITS.idleTimeoutMs,
          maxLineBytes: config.server.limits.maxLineBytes ?? DEFAULT_LIMITS.maxLineBytes,
          maxOutputBytes: config.server.limits.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
          ...spec.limits,
        },
        framework: spec.framework ?? 'auto',
      });
    }
    for (const definition of config.agents) {
      if (!this.entries.has(definition.name)) this.entries.set(definition.name, { kind: 'configured', definition });
    }
    this.defaultAgent = defaultAgent ?? (this.entries.has('demo') ? 'demo' : (this.entries.keys().next().value ?? 'demo'));
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Every agent, with whether it can run. */
  list(): AgentInfo[] {
    return [...this.entries.values()].map((e) => {
      if (e.kind === 'code') {
        const info: AgentInfo = { name: e.spec.name, framework: e.framework, enabled: true };
        if (e.spec.description) info.description = e.spec.description;
        return info;
      }
      const d = e.definition;
      const info: AgentInfo = { name: d.name, framework: d.framework, enabled: d.enabled };
      if (d.description) info.description = d.description;
      if (d.disabledReason) info.disabledReason = d.disabledReason;
      return info;
    });
  }

  /** Why `name` cannot run, or undefined when it can. */
  unavailable(name: string): string | undefined {
    const e = this.entries.get(name);
    if (!e) return `unknown agent "${name}"; expected one of: ${[...this.entries.keys()].join(', ')}`;
    if (e.kind === 'configured' && !e.definition.enabled)
      return `agent "${name}" is disabled: ${e.definition.disabledReason ?? 'switched off'}`;
    return undefined;
  }

  /** Starts one run of `name` (check `unavailable` first). */
  run(name: string, request: RunRequest, options: RunOptions): AgentRun {
    const e = this.entries.get(name);
    if (!e) throw new Error(`unknown agent "${name}"`);
    if (e.kind === 'configured') return runAgent(e.definition, request, options);
    return runInProcess({ name, framework: e.framework, limits: e.limits }, request, options, e.spec.run);
  }
}
