/**
 * The built-in agents as in-process agents for the runner: `demo` (agent lines through the
 * `claude` decoder), `replay` (a recorded capture, paced), and the SDK agents `anthropic`, `openai`,
 * `gemini` and `langchain`.
 */
import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type CanonicalEvent, decode, Emitter, isFramework } from '@switchboard/core';
import type { BuiltinAgent, BuiltinSettings } from '../config/types.ts';
import { AgentError, decoderOptions, type InProcessAgent, type InProcessContext } from '../runner/in-process.ts';
import { withClientTools } from './client-tools.ts';
import { demoAgent } from './demo.ts';
import { langchainStream } from './langchain.ts';
import { lastUserText } from './messages.ts';
import { providerStream } from './providers.ts';
import { type ReplayFormat, replayCapture } from './replay.ts';

/** A complete run whose answer is one text block (the replay agent's help). */
export function* textRun(ctx: InProcessContext, agent: string, text: string): Generator<CanonicalEvent> {
  const out = new Emitter(decoderOptions(ctx, agent), 'switchboard');
  const blockId = `${ctx.request.runId}:0`;
  out.start({ model: agent });
  out.emit({ type: 'text-start', blockId });
  out.emit({ type: 'text-delta', blockId, delta: text });
  out.emit({ type: 'text-end', blockId });
  out.emit({ type: 'run-finish', finishReason: 'stop' });
  yield* out.take();
}

function demo(agent: BuiltinAgent & { builtin: 'demo' }): InProcessAgent {
  return (ctx) => {
    const prompt = lastUserText(ctx.request.messages);
    const lines = demoAgent(prompt, { delayMs: agent.settings.delayMs, signal: ctx.signal, now: ctx.now, messages: ctx.request.messages });
    return decode(lines, 'claude', decoderOptions(ctx, agent.name));
  };
}

const MAX_LISTED = 200;

/** Capture files under `dir` (relative paths, sorted), at most `MAX_LISTED`, three levels deep. */
export async function listCaptures(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string, depth: number): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (found.length >= MAX_LISTED || e.name.startsWith('.')) continue;
      const path = join(at, e.name);
      if (e.isDirectory() && depth < 3) await walk(path, depth + 1);
      else if (e.isFile()) found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  await walk(dir, 0);
  return found;
}

/** Parses the replay agent's prompt: `<capture> [from=<framework>] [speed=<n>]`. */
export function parseReplayPrompt(
  prompt: string,
  settings: BuiltinSettings['replay'],
): { capture: string; from: ReplayFormat; speed: number } | { error: string } | undefined {
  const words = prompt.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || words[0] === 'list' || words[0] === 'help') return undefined;
  let from: ReplayFormat = 'auto';
  let speed = settings.speed;
  for (const w of words.slice(1)) {
    const [key, value = ''] = w.split('=', 2);
    if (key === 'from' && (value === 'auto' || value === 'canonical' || isFramework(value))) from = value;
    else if (key === 'speed' && /^\d+(\.\d+)?$/.test(value)) speed = Number(value);
    else return { error: `I did not understand "${w}": write "<capture> [from=<framework>] [speed=<n>]".` };
  }
  return { capture: words[0], from, speed };
}

/** The capture file a name points to, only inside `dir` (no `..`, no symlinks out). */
async function resolveCapture(dir: string, name: string): Promise<string | undefined> {
  if (isAbsolute(name)) return undefined;
  const root = await realpath(dir).catch(() => undefined);
  if (!root) return undefined;
  const path = await realpath(resolve(root, name)).catch(() => undefined);
  if (!path) return undefined;
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? path : undefined;
}

function replay(agent: BuiltinAgent & { builtin: 'replay' }): InProcessAgent {
  const settings = agent.settings;
  return async function* (ctx) {
    const parsed = parseReplayPrompt(lastUserText(ctx.request.messages), settings);
    const help = async (lead: string) => {
      const captures = await listCaptures(settings.dir);
      const list = captures.length
        ? captures.map((c) => `- ${c}`).join('\n')
        : `(no captures in ${settings.dir}: set builtins.replay.dir or SWITCHBOARD_CAPTURES_DIR)`;
      return `${lead}\n\nSend the name of a capture, optionally with from=<framework> and speed=<n> (0 = no pauses). Captures:\n\n${list}`;
    };
    if (!parsed) {
      yield* textRun(ctx, agent.name, await help('I replay recorded agent streams as if they were live.'));
      return;
    }
    if ('error' in parsed) {
      yield* textRun(ctx, agent.name, await help(parsed.error));
      return;
    }
    const path = await resolveCapture(settings.dir, parsed.capture);
    if (!path) {
      yield* textRun(ctx, agent.name, await help(`There is no capture "${parsed.capture}".`));
      return;
    }
    yield* replayCapture(createReadStream(path, { highWaterMark: 64 * 1024 }), {
      ...decoderOptions(ctx, agent.name),
      from: parsed.from,
      speed: parsed.speed,
      intervalMs: settings.intervalMs,
      signal: ctx.signal,
    });
  };
}

/** The in-process implementation of a built-in agent. */
export function builtinAgent(agent: BuiltinAgent): InProcessAgent {
  switch (agent.builtin) {
    case 'demo':
      return demo(agent);
    case 'replay':
      return replay(agent);
    case 'anthropic':
    case 'openai':
    case 'gemini': {
      const settings = agent.settings;
      return (ctx) => withClientTools(providerStream(ctx, settings, agent.name), ctx.request.tools);
    }
    case 'langchain': {
      const settings = agent.settings;
      return (ctx) => withClientTools(langchainStream(ctx, settings, agent.name), ctx.request.tools);
    }
    default:
      throw new AgentError('unknown_agent', `unknown built-in agent "${(agent as { builtin: string }).builtin}"`);
  }
}
