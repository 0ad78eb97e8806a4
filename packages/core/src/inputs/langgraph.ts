/**
 * Decoder for LangGraph `graph.stream(input, { streamMode: [...] })` output: one `[mode, payload]`
 * tuple per value, or `[namespace, mode, payload]` with `subgraphs: true`.
 *
 * - `messages` (`[message, metadata]`): AI message chunks stream into canonical blocks and tool calls
 *   (the LangChain message machinery of `langchain.ts`); a ToolMessage is the output of its call.
 *   One LangGraph superstep (`metadata.langgraph_step`) of a namespace is one canonical step.
 * - `values`: the whole state → state-snapshot (`todos` → todos). The first snapshot is the input
 *   state; AI / tool messages that appear later and were not streamed (values-only streams) are
 *   emitted whole. `__interrupt__` → an `interrupt` per item (a HumanInTheLoop middleware action
 *   request: a `tool-approval-request` for its tool call) and an `interrupted` status; the run then
 *   ends waiting (`run-finish.pending`).
 * - `updates` (`{node: update}`): the node's messages not seen yet are emitted whole; the update is a
 *   state-delta (JSON Patch: `add` per key, messages appended).
 * - `custom`: the writer's payload → todos / status / custom. `tools`: tool lifecycle events.
 * - `debug`, `tasks`, `checkpoints`: execution traces → raw.
 * - A subgraph namespace is a subagent: its events carry `subagentId` (the namespace path).
 *
 * A LangGraph stream has no terminal event: the end of the input ends the run.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location } from '../model/events.ts';
import { at, type Decoder } from './decoder.ts';
import { isObject, type Obj, parseToolInput, rest } from './kit/index.ts';
import { AiMessage, LcContext, type MessageResult, readMessage, stepFinish } from './langchain.ts';

const MODES = new Set(['values', 'updates', 'messages', 'custom', 'debug', 'tasks', 'checkpoints', 'tools', 'events', 'messages-tuple']);

/** True when one parsed value is unmistakably a LangGraph `[mode, payload]` / `[namespace, mode, payload]` tuple. */
export function detectLanggraph(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 2) return typeof value[0] === 'string' && MODES.has(value[0]);
  if (value.length === 3)
    return Array.isArray(value[0]) && value[0].every((s) => typeof s === 'string') && typeof value[1] === 'string' && MODES.has(value[1]);
  return false;
}

/** The prompt of an interrupt value: the value itself, its question / message, or its first action request's description. */
function promptOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!isObject(v)) return undefined;
  if (typeof v.question === 'string' && v.question) return v.question;
  if (typeof v.message === 'string' && v.message) return v.message;
  const first = Array.isArray(v.actionRequests) ? v.actionRequests[0] : undefined;
  return isObject(first) && typeof first.description === 'string' ? first.description : undefined;
}

interface Step {
  id: string;
  key: string;
  ns: string;
  node: string;
  emitted: boolean;
  messages: Map<string, AiMessage>;
  current: AiMessage | undefined;
  results: MessageResult[];
  model?: string;
  meta: JsonObject;
}

/** JSON Pointer escaping of one key (RFC 6901). */
function pointer(key: string): string {
  return `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function nsKey(ns: string[]): string {
  return ns.join('|');
}

function metaOf(meta: unknown): Obj {
  return isObject(meta) ? meta : {};
}

function stepKey(ns: string, meta: Obj): { key: string; node: string; number?: number } {
  const node = typeof meta.langgraph_node === 'string' ? meta.langgraph_node : 'model';
  const number = typeof meta.langgraph_step === 'number' ? meta.langgraph_step : undefined;
  return { key: number !== undefined ? `${ns}#${number}` : `${ns}#${node}`, node, ...(number !== undefined ? { number } : {}) };
}

/** A subgraph namespace is a subagent: entering one starts it (and its parents), the parent's update ends it. */
function subgraphs(ctx: LcContext, subagents: Map<string, { parent?: string; node: string }>, closeNamespace: (ns: string) => void) {
  function enterNamespace(ns: string[]): void {
    const key = nsKey(ns);
    for (let i = 1; i <= ns.length; i++) {
      const k = nsKey(ns.slice(0, i));
      if (subagents.has(k)) continue;
      const parent = i > 1 ? nsKey(ns.slice(0, i - 1)) : undefined;
      const node = (ns[i - 1] as string).split(':')[0] as string;
      subagents.set(k, { node, ...(parent !== undefined ? { parent } : {}) });
      ctx.subagentId = parent;
      const e: EventInit = { type: 'subagent-start', subagentId: k, name: node };
      if (parent !== undefined) e.parentSubagentId = parent;
      ctx.emit(e);
    }
    ctx.subagentId = key === '' ? undefined : key;
  }

  /** Subgraphs of `ns` run by `node` are over once the parent reports the node's update. */
  function finishSubagents(ns: string, node: string): void {
    const prev = ctx.subagentId;
    for (const [k, s] of [...subagents]) {
      if ((s.parent ?? '') !== ns || s.node !== node) continue;
      const family = [...subagents.keys()].filter((x) => x === k || x.startsWith(`${k}|`)).reverse();
      for (const f of family) {
        ctx.subagentId = f;
        closeNamespace(f);
        ctx.subagentId = subagents.get(f)?.parent;
        ctx.emit({ type: 'subagent-finish', subagentId: f });
        subagents.delete(f);
      }
    }
    ctx.subagentId = prev;
  }

  return { enterNamespace, finishSubagents };
}

/**
 * `__interrupt__` items (`{value, id, resumable?, ns?, when?}`): each new one is an `interrupt`, or, for
 * the HumanInTheLoop middleware's `{actionRequests, reviewConfigs}` value, one tool-approval-request
 * per action request whose tool call was announced (approval id: the interrupt id, `#<n>` after the first).
 */
function interrupts(ctx: LcContext, closeSteps: () => void) {
  const seen = new Set<string>();
  const state = { interrupted: false };
  function interrupt(value: unknown, where?: Location): void {
    if (!Array.isArray(value)) return ctx.invalid(where, '__interrupt__', 'a list of interrupts');
    const fresh = value.filter((i) => {
      const id = isObject(i) && typeof i.id === 'string' ? i.id : JSON.stringify(i);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    if (fresh.length === 0) return;
    state.interrupted = true;
    closeSteps();
    let message: string | undefined;
    for (const item of fresh) {
      const obj = isObject(item) ? item : { value: item as Json };
      const interruptId =
        (typeof obj.id === 'string' && obj.id) || (typeof obj.interrupt_id === 'string' && obj.interrupt_id) || `interrupt_${seen.size}`;
      const v = obj.value;
      message ??= promptOf(v);
      const meta = rest(obj, ['id', 'value']);
      if (isObject(v) && Array.isArray(v.actionRequests) && approvals(interruptId, v, meta)) continue;
      const e: EventInit = { type: 'interrupt', interruptId, reason: 'input_required' };
      const prompt = promptOf(v);
      if (prompt) e.message = prompt;
      if (v !== undefined) e.value = v as Json;
      if (meta) e.providerMetadata = { langgraph: meta };
      ctx.emit(e);
    }
    ctx.emit({ type: 'status', status: 'interrupted', ...(message ? { message } : {}) });
  }

  /** The HumanInTheLoop middleware's action requests as approvals of the tool calls they name; false when one has no call. */
  function approvals(interruptId: string, v: Obj, meta: JsonObject | undefined): boolean {
    const requests = v.actionRequests as unknown[];
    const used = new Set<string>();
    const calls: string[] = [];
    for (const r of requests) {
      const req = isObject(r) ? r : {};
      const match = [...ctx.tools.entries()]
        .reverse()
        .find(
          ([id, t]) => !used.has(id) && !t.output && t.ended && t.name === req.name && JSON.stringify(t.input) === JSON.stringify(req.args),
        );
      if (!match) return false;
      used.add(match[0]);
      calls.push(match[0]);
    }
    const configs = Array.isArray(v.reviewConfigs) ? v.reviewConfigs : [];
    requests.forEach((r, i) => {
      const req = isObject(r) ? r : {};
      const approvalId = i === 0 ? interruptId : `${interruptId}#${i + 1}`;
      const toolCallId = calls[i] as string;
      const e: EventInit = { type: 'tool-approval-request', approvalId, toolCallId, toolName: ctx.tools.get(toolCallId)?.name as string };
      if (typeof req.description === 'string') e.reason = req.description;
      const lg: JsonObject = { interruptId, ...meta, ...rest(req, ['name', 'args', 'description']) };
      const config = configs.find((c) => isObject(c) && c.actionName === req.name);
      if (config) lg.reviewConfig = config as Json;
      const others = rest(v, ['actionRequests', 'reviewConfigs']);
      if (others) lg.value = others;
      e.providerMetadata = { langgraph: lg };
      ctx.emit(e);
    });
    return true;
  }

  return { interrupt, state };
}

/** Creates a decoder for LangGraph `graph.stream(..., { streamMode: [...] })` tuples. */
export function createLanggraphDecoder(options: DecoderOptions = {}): Decoder {
  const ctx = new LcContext(options, 'langgraph');
  const out = ctx.out;
  /** Open step per namespace. */
  const steps = new Map<string, Step>();
  /** Ids of messages already shown (streamed, emitted whole, or part of the input state). */
  const seen = new Set<string>();
  const baseline = new Set<string>();
  /** Tool calls of AI messages in the input state (a resumed run): shown when their output arrives. */
  const baselineCalls = new Map<string, { name: string; args: Json }>();
  const taskOf = new WeakMap<AiMessage, string>();
  let values = 0;
  const subagents = new Map<string, { parent?: string; node: string }>();
  const { interrupt, state: waiting } = interrupts(ctx, () => {
    for (const s of [...steps.values()]) closeStep(s);
  });
  let stepCount = 0;

  const { enterNamespace, finishSubagents } = subgraphs(ctx, subagents, closeNamespace);

  function closeNamespace(ns: string): void {
    const s = steps.get(ns);
    if (s) closeStep(s);
  }

  function openStep(ns: string, key: string, node: string, kind: 'model' | 'action' | 'other', meta: Obj, number?: number): Step {
    const open = steps.get(ns);
    if (open && open.key === key) {
      if (!open.emitted) emitStep(open, kind, number);
      return open;
    }
    if (open) closeStep(open);
    stepCount++;
    const base = `${ns ? `${ns}/` : ''}${node}:${number ?? stepCount}`;
    const s: Step = { id: ctx.uid(base), key, ns, node, emitted: false, messages: new Map(), current: undefined, results: [], meta: {} };
    const info = rest(meta, ['name', 'langgraph_step', 'langgraph_node', 'ls_model_name']);
    if (info) s.meta = info;
    if (typeof meta.ls_model_name === 'string') s.model = meta.ls_model_name;
    steps.set(ns, s);
    emitStep(s, kind, number);
    return s;
  }

  function emitStep(s: Step, kind: 'model' | 'action' | 'other', number?: number): void {
    s.emitted = true;
    const e: EventInit = { type: 'step-start', stepId: s.id, kind, name: s.node };
    if (number !== undefined) e.number = number;
    if (s.model !== undefined && kind === 'model') e.model = s.model;
    if (Object.keys(s.meta).length) e.providerMetadata = { langgraph: s.meta };
    ctx.emit(e);
  }

  function closeStep(s: Step): void {
    if (steps.get(s.ns) === s) steps.delete(s.ns);
    for (const m of s.messages.values()) finishMessage(s, m);
    ctx.emit(stepFinish(s.id, s.results));
  }

  function finishMessage(s: Step, m: AiMessage, end?: Obj): void {
    if (m.closed) return;
    const r = m.close(s.model, end);
    s.results.push(r);
    ctx.totals.add(r);
  }

  /** An AI message chunk (or whole AI message) from `messages` mode. */
  function aiChunk(ns: string, fields: Obj, chunk: boolean, meta: Obj, where?: Location): void {
    const id = typeof fields.id === 'string' ? fields.id : undefined;
    if (!chunk && id !== undefined && seen.has(id)) return; // a node's output message we already streamed
    const { key, node, number } = stepKey(ns, meta);
    const s = openStep(ns, key, node, 'model', meta, number);
    const task = String(meta.langgraph_checkpoint_ns ?? meta.__pregel_task_id ?? node);
    let m: AiMessage | undefined = id !== undefined ? s.messages.get(id) : s.current;
    if (!m) {
      const cur = s.current;
      if (cur && !cur.closed && (id === undefined || AiMessage.isEmpty(fields) || !cur.started)) m = cur;
      else {
        // A new model call; one that follows in the same task ends the previous one.
        if (cur && !cur.closed && taskOf.get(cur) === task) finishMessage(s, cur);
        m = new AiMessage(ctx, `${s.id}:${id ?? s.messages.size}`);
        taskOf.set(m, task);
        s.current = m;
      }
      if (id !== undefined) s.messages.set(id, m);
    }
    if (id !== undefined) seen.add(id);
    m.push(fields, where);
    if (!chunk) finishMessage(s, m);
  }

  /** A ToolMessage: the output (or error) of its tool call, once. */
  function toolMessage(fields: Obj, meta: JsonObject | undefined): void {
    const id = typeof fields.id === 'string' ? fields.id : undefined;
    if (id !== undefined) seen.add(id);
    const callId = typeof fields.tool_call_id === 'string' ? fields.tool_call_id : (id ?? 'unknown');
    const call = baselineCalls.get(callId);
    if (call && !ctx.tools.has(callId)) ctx.toolCall(callId, call.name, call.args);
    const content = (fields.content ?? null) as Json;
    const extra: JsonObject = { ...rest(fields, ['content', 'tool_call_id', 'status']), ...meta };
    const name = typeof fields.name === 'string' ? fields.name : undefined;
    const opts = { ...(name !== undefined ? { name } : {}), ...(Object.keys(extra).length ? { meta: extra } : {}) };
    if (fields.status === 'error')
      ctx.toolOutput(callId, content, { ...opts, error: typeof content === 'string' ? content : JSON.stringify(content) });
    else ctx.toolOutput(callId, content, opts);
  }

  function messagesMode(ns: string, payload: unknown, where?: Location): void {
    if (!Array.isArray(payload) || payload.length < 1) {
      return ctx.error(
        'invalid_field',
        `${describe(at(where, '[1]'))}: expected a [message, metadata] pair`,
        at(where, '[1]', '[message, metadata]'),
      );
    }
    const [value, rawMeta] = payload;
    const meta = metaOf(rawMeta);
    const m = readMessage(value);
    if (!m) {
      return ctx.error(
        'invalid_field',
        `${describe(at(where, '[1][0]'))}: expected a LangChain message (serialized {lc, type, id, kwargs} or {type, content})`,
        at(where, '[1][0]', 'message'),
      );
    }
    if (m.role === 'ai') return aiChunk(ns, m.fields, m.chunk, meta, at(where, '[1][0]'));
    if (m.role === 'tool') {
      const { key, node, number } = stepKey(ns, meta);
      openStep(ns, key, node, 'action', meta, number);
      const { key: _k, ...streamMeta } = { key: 0, ...rest(meta, ['langgraph_step', 'langgraph_node']) };
      return toolMessage(m.fields, Object.keys(streamMeta).length ? { stream: streamMeta as JsonObject } : undefined);
    }
    ctx.raw(payload, `a ${m.cls} in the messages stream (only AI and tool messages are output)`, where);
  }

  /** Messages of a state (values / updates) that were not shown yet: emitted whole. */
  function newMessages(ns: string, messages: unknown[], into: Step | undefined): void {
    for (const v of messages) {
      const m = readMessage(v);
      if (!m) continue;
      const id = typeof m.fields.id === 'string' ? m.fields.id : undefined;
      if (id !== undefined && (seen.has(id) || baseline.has(id))) continue;
      if (m.role === 'ai') {
        const tcs = Array.isArray(m.fields.tool_calls) ? m.fields.tool_calls.filter(isObject) : [];
        if (AiMessage.isEmpty(m.fields) && tcs.length === 0) continue;
        const s = into ?? openStep(ns, `${ns}#whole:${id ?? stepCount}`, 'model', 'model', {});
        const msg = new AiMessage(ctx, `${s.id}:${id ?? s.messages.size}`);
        s.messages.set(id ?? `#${s.messages.size}`, msg);
        msg.push(m.fields);
        finishMessage(s, msg);
        if (!into) closeStep(s);
        if (id !== undefined) seen.add(id);
      } else if (m.role === 'tool') {
        const callId = typeof m.fields.tool_call_id === 'string' ? m.fields.tool_call_id : undefined;
        if (callId !== undefined && ctx.tools.get(callId)?.output) {
          if (id !== undefined) seen.add(id);
          continue;
        }
        toolMessage(m.fields, undefined);
      }
    }
  }

  function valuesMode(ns: string, payload: unknown, where?: Location): void {
    if (!isObject(payload)) {
      ctx.emit({ type: 'state-snapshot', state: (payload ?? null) as Json });
      return;
    }
    // A values event closes the superstep of its namespace.
    closeNamespace(ns);
    if ('__interrupt__' in payload) {
      interrupt(payload.__interrupt__, where);
      const others = rest(payload, ['__interrupt__']);
      if (!others) return;
    }
    const messages = Array.isArray(payload.messages) ? payload.messages : undefined;
    if (messages) messagesKnown.add(ns);
    const first = !baselineSeen.has(ns);
    baselineSeen.add(ns);
    if (messages) {
      if (first) {
        for (const v of messages) {
          const m = readMessage(v);
          if (m && typeof m.fields.id === 'string') baseline.add(m.fields.id);
          if (m?.role === 'ai' && Array.isArray(m.fields.tool_calls))
            for (const tc of m.fields.tool_calls)
              if (isObject(tc) && typeof tc.id === 'string')
                baselineCalls.set(tc.id, { name: typeof tc.name === 'string' ? tc.name : 'unknown', args: (tc.args ?? {}) as Json });
          if (m?.role === 'tool' && typeof m.fields.tool_call_id === 'string') baselineCalls.delete(m.fields.tool_call_id);
        }
      } else newMessages(ns, messages, undefined);
    }
    ctx.emit({ type: 'state-snapshot', state: payload as Json });
    if (Array.isArray(payload.todos)) {
      if (first) ctx.primeTodos(payload.todos);
      else ctx.setTodos(payload.todos, 'snapshot');
    }
  }
  const baselineSeen = new Set<string>();
  /** Namespaces whose state is known (to the client) to have a `messages` list. */
  const messagesKnown = new Set<string>();

  function updatesMode(ns: string, payload: unknown, where?: Location): void {
    if (!isObject(payload)) {
      return ctx.error(
        'invalid_field',
        `${describe(at(where, 'payload'))}: expected an object {node: update}`,
        at(where, 'payload', 'object'),
      );
    }
    for (const [node, update] of Object.entries(payload)) {
      if (node === '__interrupt__') {
        interrupt(update, where);
        continue;
      }
      finishSubagents(ns, node);
      // The node's step (open from its streamed messages, else one for this update).
      let s = steps.get(ns);
      if (!s || s.node !== node) {
        const list = (Array.isArray(update) ? update : [update]).flatMap((u) =>
          isObject(u) && u.messages !== undefined ? [u.messages].flat() : [],
        );
        const kind = list.some((v) => readMessage(v)?.role === 'ai') ? 'model' : list.length ? 'action' : 'other';
        s = openStep(ns, `${ns}#update:${node}:${stepCount}`, node, kind, {});
      }
      const patch: { op: 'add'; path: string; value: Json }[] = [];
      const apply = (u: unknown) => {
        if (!isObject(u)) return;
        for (const [k, v] of Object.entries(u)) {
          if (k === 'messages') {
            const list = Array.isArray(v) ? v : [v];
            newMessages(ns, list, s);
            // Append to a list the client already has; create it when no snapshot has shown it yet, so
            // the patch always applies.
            if (messagesKnown.has(ns))
              for (const msg of list) patch.push({ op: 'add', path: `${pointer('messages')}/-`, value: msg as Json });
            else patch.push({ op: 'add', path: pointer('messages'), value: list as Json });
            messagesKnown.add(ns);
          } else {
            patch.push({ op: 'add', path: pointer(k), value: (v ?? null) as Json });
            if (k === 'todos' && Array.isArray(v)) ctx.setTodos(v, 'update');
          }
        }
      };
      if (Array.isArray(update)) update.forEach(apply);
      else if (isObject(update)) apply(update);
      else if (update !== null && update !== undefined)
        ctx.raw({ [node]: update } as Json, `update of node "${node}" is not an object`, where);
      if (patch.length) ctx.emit({ type: 'state-delta', patch });
      closeStep(s);
    }
  }

  function toolsMode(payload: unknown, where?: Location): void {
    if (!isObject(payload) || typeof payload.event !== 'string' || typeof payload.toolCallId !== 'string') {
      return ctx.error(
        'invalid_field',
        `${describe(at(where, 'payload'))}: expected a tool event {event, toolCallId, name}`,
        at(where, 'payload', '{event, toolCallId}'),
      );
    }
    const id = payload.toolCallId;
    const name = typeof payload.name === 'string' ? payload.name : 'unknown';
    const extra = rest(payload, ['event', 'toolCallId', 'name', 'input', 'output', 'data', 'error']);
    let input = payload.input as Json;
    // Text that is not JSON stays the input as sent.
    if (typeof input === 'string' && input.trim() !== '') input = parseToolInput(input).input;
    if (!ctx.tools.has(id)) ctx.toolCall(id, name, (input ?? {}) as Json, false, extra);
    switch (payload.event) {
      case 'on_tool_start':
        if (extra || (ctx.tools.get(id)?.input !== undefined && JSON.stringify(ctx.tools.get(id)?.input) !== JSON.stringify(input)))
          ctx.emit({ type: 'custom', name: 'langgraph.tool_start', value: payload as Json });
        return;
      case 'on_tool_event':
        return ctx.toolOutput(id, (payload.data ?? null) as Json, { preliminary: true, name });
      case 'on_tool_end': {
        const m = readMessage(payload.output);
        if (m?.role === 'tool') return toolMessage(m.fields, extra);
        return ctx.toolOutput(id, (payload.output ?? null) as Json, { name, ...(extra ? { meta: extra } : {}) });
      }
      case 'on_tool_error': {
        const err = payload.error;
        const text = typeof err === 'string' ? err : isObject(err) && typeof err.message === 'string' ? err.message : JSON.stringify(err);
        return ctx.toolOutput(id, (err ?? null) as Json, { error: text, name });
      }
      default:
        ctx.raw(payload, `unknown tools event ${JSON.stringify(payload.event)}`, where);
    }
  }

  function handle(ns: string[], mode: string, payload: unknown, value: unknown, where?: Location): void {
    enterNamespace(ns);
    const key = nsKey(ns);
    switch (mode) {
      case 'messages':
      case 'messages-tuple':
        return messagesMode(key, payload, where);
      case 'values':
        return valuesMode(key, payload, where);
      case 'updates':
        return updatesMode(key, payload, where);
      case 'custom': {
        const name = isObject(payload) && typeof payload.type === 'string' ? payload.type : 'langgraph.custom';
        return ctx.custom(name, payload);
      }
      case 'tools':
        return toolsMode(payload, where);
      case 'debug':
      case 'tasks':
      case 'checkpoints':
      case 'events':
        return ctx.raw(value, `LangGraph "${mode}" stream: an execution trace with no canonical mapping`, where);
      default:
        return ctx.raw(value, `unknown stream mode ${JSON.stringify(mode)}`, where);
    }
  }

  return ctx.decoder({
    push(value, where) {
      if (!out.started) out.start();
      if (Array.isArray(value)) values++;
      if (!Array.isArray(value)) {
        ctx.error(
          'invalid_event',
          `${describe(where ?? {})}: expected a [mode, payload] or [namespace, mode, payload] array, got ${value === null ? 'null' : typeof value}`,
          { ...where, expected: 'array' },
        );
      } else if (value.length === 2 && typeof value[0] === 'string') {
        handle([], value[0], value[1], value, where);
      } else if (
        value.length === 3 &&
        Array.isArray(value[0]) &&
        value[0].every((s) => typeof s === 'string') &&
        typeof value[1] === 'string'
      ) {
        handle(value[0] as string[], value[1], value[2], value, where);
      } else {
        ctx.error('invalid_event', `${describe(where ?? {})}: expected [mode, payload] or [namespace, mode, payload] with a string mode`, {
          ...where,
          expected: '[mode, payload]',
        });
      }
      ctx.subagentId = undefined;
    },
    finish() {
      for (const k of [...steps.keys()].sort((a, b) => b.length - a.length)) {
        const s = steps.get(k);
        if (!s) continue;
        ctx.subagentId = k || undefined;
        closeStep(s);
      }
      for (const k of [...subagents.keys()].reverse()) {
        ctx.subagentId = subagents.get(k)?.parent;
        ctx.emit({ type: 'subagent-finish', subagentId: k });
      }
      subagents.clear();
      ctx.subagentId = undefined;
      if (values === 0) {
        ctx.empty('the stream contained no LangGraph [mode, payload] tuples');
        ctx.fatal = true;
      }
      // After an interrupt the emitter names what the run waits for (pending, finishReason tool-calls / other).
      const interrupt = !ctx.fatal && waiting.interrupted ? 'interrupt' : undefined;
      ctx.emit(ctx.totals.runFinish(ctx.fatal, 'stop', { rawFinishReason: interrupt }));
    },
  });
}
