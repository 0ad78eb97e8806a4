/**
 * One AI SDK UI message chunk → canonical events (`start`, steps, text / reasoning parts, tool
 * input and output, sources, files, data parts, message metadata, errors, finish, abort).
 */
import { describe } from '../../codec/framing.ts';
import { at, isObject } from '../../inputs/decoder.ts';
import type { Emitter } from '../../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Location, ProviderMetadata } from '../../model/events.ts';
import { mergeProviderMetadata as merge } from '../../model/metadata.ts';
import { FINISH_REASONS, FRAMEWORK, onlyKeys, type ReadState, str, type ToolState } from './read-state.ts';

/** Creates the chunk handler of one reader. */
export function createChunkHandler(s: ReadState) {
  function handle(v: Record<string, unknown>, type: string, where: Location | undefined): void {
    switch (type) {
      case 'start': {
        if (v.messageId !== undefined && !str(v.messageId)) return s.invalid(where, 'messageId', 'a string', v.messageId);
        const meta = v.messageMetadata;
        if (!s.out.started) {
          const init: Parameters<Emitter['start']>[0] = {};
          if (str(v.messageId)) init.messageId = v.messageId;
          if (isObject(meta)) init.metadata = meta as JsonObject;
          let pm = s.extras(v, ['type', 'messageId', 'messageMetadata']);
          if (meta !== undefined && meta !== null && !isObject(meta)) pm = merge(pm, { [FRAMEWORK]: { messageMetadata: meta as Json } });
          if (pm) init.providerMetadata = pm;
          s.out.start(init);
          s.messageId = s.options.messageId ?? init.messageId ?? s.out.runId;
          return;
        }
        // A later start (merged streams): only worth an event when it says something new.
        const rest = s.restOf(v, ['type']);
        if (Object.keys(rest).length === 0 || (Object.keys(rest).length === 1 && rest.messageId === s.messageId)) return;
        return s.custom('start', rest);
      }
      case 'start-step': {
        s.ensureStarted();
        s.closeStep();
        s.step = `step-${++s.stepCount}`;
        const pm = s.extras(v, ['type']);
        s.out.emit({ type: 'step-start', stepId: s.step, kind: 'model', ...(pm ? { providerMetadata: pm } : {}) });
        return;
      }
      case 'finish-step':
        // Parts stay open across a step's end (the official client keeps them: merged streams), unless
        // a fatal error ended the run: then the step's open parts are over.
        if (s.fatal) s.closeBlocks('the run failed before the tool input was complete');
        return s.closeStep(s.fatal ? 'error' : undefined);
      case 'reset-step':
        // The client drops the step's parts; events already sent cannot be taken back, so the reset
        // is passed on for consumers that can (and open parts are closed).
        s.ensureStarted();
        s.closeBlocks('the step was reset');
        return s.custom('reset-step', s.restOf(v, ['type']));
      case 'text-start':
      case 'reasoning-start': {
        if (!str(v.id)) return s.invalid(where, 'id', 'a string part id', v.id);
        const pm = merge(s.pmOf(v, where), s.extras(v, ['type', 'id', 'providerMetadata']));
        if (type === 'text-start') s.openText(v.id, pm);
        else s.openReasoning(v.id, pm);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        if (!str(v.id)) return s.invalid(where, 'id', 'a string part id', v.id);
        if (!str(v.delta)) return s.invalid(where, 'delta', 'a string', v.delta);
        const isText = type === 'text-delta';
        let b = (isText ? s.texts : s.reasonings).get(v.id);
        if (!b) {
          s.error(
            'unknown_block',
            `${describe(at(where, 'id'))}: ${type} for part "${v.id}", which was never started (or already ended); started it`,
            at(where, 'id', `the id of an open ${isText ? 'text' : 'reasoning'} part`),
          );
          b = isText ? s.openText(v.id, undefined) : s.openReasoning(v.id, undefined);
        }
        const pm = merge(s.pmOf(v, where), s.extras(v, ['type', 'id', 'delta', 'providerMetadata']));
        if (pm) b.pm = merge(b.pm, isText ? pm : s.variantOf(pm).pm);
        if (v.delta)
          s.out.emit(
            isText ? { type: 'text-delta', blockId: b.id, delta: v.delta } : { type: 'reasoning-delta', blockId: b.id, delta: v.delta },
          );
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        if (!str(v.id)) return s.invalid(where, 'id', 'a string part id', v.id);
        const isText = type === 'text-end';
        const map = isText ? s.texts : s.reasonings;
        const b = map.get(v.id);
        if (!b)
          return s.error(
            'unknown_block',
            `${describe(at(where, 'id'))}: ${type} for part "${v.id}", which is not open`,
            at(where, 'id', `the id of an open ${isText ? 'text' : 'reasoning'} part`),
          );
        map.delete(v.id);
        let pm = merge(b.pm, merge(s.pmOf(v, where), s.extras(v, ['type', 'id', 'providerMetadata', 'citations'])));
        if (isText) {
          if (Array.isArray(v.citations)) {
            v.citations.forEach((c, i) => {
              const citation = s.citationOf(c, where, `citations[${i}]`);
              if (citation) s.out.emit({ type: 'citation', blockId: b.id, citation });
            });
          } else if (v.citations !== undefined && v.citations !== null) s.invalid(where, 'citations', 'an array', v.citations);
          s.out.emit({ type: 'text-end', blockId: b.id, ...(pm ? { providerMetadata: pm } : {}) });
        } else {
          pm = s.variantOf(pm).pm;
          s.out.emit({ type: 'reasoning-end', blockId: b.id, ...(pm ? { providerMetadata: pm } : {}) });
        }
        return;
      }
      case 'tool-input-start': {
        if (!str(v.toolCallId)) return s.invalid(where, 'toolCallId', 'a string', v.toolCallId);
        if (!str(v.toolName)) return s.invalid(where, 'toolName', 'a string', v.toolName);
        const existing = s.tools.get(v.toolCallId);
        if (existing?.open) return; // the same call announced twice
        s.ensureStarted();
        const pm = merge(s.pmOf(v, where), s.extras(v, ['type', 'toolCallId', 'toolName', 'providerExecuted', 'providerMetadata']));
        const t: ToolState = {
          name: v.toolName,
          open: true,
          text: '',
          textEncoding: v.inputEncoding === 'text',
          providerExecuted: v.providerExecuted === true,
        };
        if (pm) t.pm = pm;
        s.tools.set(v.toolCallId, t);
        const e: EventInit = { type: 'tool-input-start', toolCallId: v.toolCallId, toolName: v.toolName };
        if (t.providerExecuted) e.providerExecuted = true;
        if (pm) e.providerMetadata = pm;
        s.out.emit(e);
        return;
      }
      case 'tool-input-delta': {
        if (!str(v.toolCallId)) return s.invalid(where, 'toolCallId', 'a string', v.toolCallId);
        if (!str(v.inputTextDelta)) return s.invalid(where, 'inputTextDelta', 'a string', v.inputTextDelta);
        const t = s.tools.get(v.toolCallId);
        if (!t?.open)
          return s.error(
            'unknown_tool_call',
            `${describe(at(where, 'toolCallId'))}: tool-input-delta for call "${v.toolCallId}", which was never started (or already complete)`,
            at(where, 'toolCallId', 'the id of a tool call whose input is streaming'),
          );
        if (v.inputTextDelta) {
          t.text += v.inputTextDelta;
          s.out.emit({ type: 'tool-input-delta', toolCallId: v.toolCallId, delta: v.inputTextDelta });
        }
        return;
      }
      case 'tool-input-available':
      case 'tool-input-error': {
        if (!str(v.toolCallId)) return s.invalid(where, 'toolCallId', 'a string', v.toolCallId);
        if (!str(v.toolName)) return s.invalid(where, 'toolName', 'a string', v.toolName);
        const isError = type === 'tool-input-error';
        if (isError && !str(v.errorText)) return s.invalid(where, 'errorText', 'a string', v.errorText);
        s.ensureStarted();
        // The input is the chunk's (never parsed from the deltas); so are its metadata and flags.
        const known = ['type', 'toolCallId', 'toolName', 'input', 'providerExecuted', 'providerMetadata', 'errorText'];
        const pm = merge(s.pmOf(v, where), s.extras(v, known));
        const providerExecuted = v.providerExecuted === true;
        s.tools.set(v.toolCallId, { name: v.toolName, open: false, text: '', textEncoding: false, providerExecuted });
        const e: EventInit = { type: 'tool-input-end', toolCallId: v.toolCallId, toolName: v.toolName, input: (v.input ?? null) as Json };
        if (isError) e.inputError = v.errorText as string;
        if (providerExecuted) e.providerExecuted = true;
        if (pm) e.providerMetadata = pm;
        s.out.emit(e);
        return;
      }
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied': {
        if (!str(v.toolCallId)) return s.invalid(where, 'toolCallId', 'a string', v.toolCallId);
        if (type === 'tool-output-available' && !('output' in v)) return s.invalid(where, 'output', 'the tool output (any JSON value)');
        if (type === 'tool-output-error' && !str(v.errorText)) return s.invalid(where, 'errorText', 'a string', v.errorText);
        s.ensureStarted();
        const t = s.tools.get(v.toolCallId);
        if (t?.open) s.closeTool(v.toolCallId, t, 'an output arrived before the input was complete');
        const known = ['type', 'toolCallId', 'output', 'errorText', 'providerExecuted', 'preliminary', 'providerMetadata'];
        let pm = merge(s.pmOf(v, where), s.extras(v, known));
        const base = {
          toolCallId: v.toolCallId,
          ...(t ? { toolName: t.name } : {}),
          ...(v.providerExecuted === true ? { providerExecuted: true } : {}),
        };
        if (type === 'tool-output-available') {
          s.out.emit({
            type: 'tool-output',
            ...base,
            output: v.output as Json,
            ...(v.preliminary === true ? { preliminary: true } : {}),
            ...(pm ? { providerMetadata: pm } : {}),
          });
        } else if (type === 'tool-output-error') {
          s.out.emit({ type: 'tool-error', ...base, error: v.errorText as string, ...(pm ? { providerMetadata: pm } : {}) });
        } else if (s.unplacedDenials > 0 && !s.denied.has(v.toolCallId)) {
          s.unplacedDenials--;
          s.denied.add(v.toolCallId);
        } else if (!s.denied.has(v.toolCallId)) {
          // A denial without its approval answer in the stream (the official server sends only this):
          // the answer, named by the call's approval when the stream asked it, else by the call.
          s.denied.add(v.toolCallId);
          let approvalId = v.toolCallId;
          for (const [a, c] of s.approvals) if (c === v.toolCallId) approvalId = a;
          pm = merge(pm, { [FRAMEWORK]: { deniedOnly: true } });
          s.out.emit({
            type: 'tool-approval-response',
            approvalId,
            toolCallId: v.toolCallId,
            approved: false,
            providerMetadata: pm as ProviderMetadata,
          });
        }
        return;
      }
      case 'tool-approval-request': {
        if (!str(v.approvalId)) return s.invalid(where, 'approvalId', 'a string', v.approvalId);
        if (!str(v.toolCallId)) return s.invalid(where, 'toolCallId', 'a string', v.toolCallId);
        if (v.reason !== undefined && !str(v.reason)) return s.invalid(where, 'reason', 'a string', v.reason);
        s.ensureStarted();
        s.approvals.set(v.approvalId, v.toolCallId);
        const t = s.tools.get(v.toolCallId);
        const pm = s.extras(v, ['type', 'approvalId', 'toolCallId', 'reason']);
        const e: EventInit = { type: 'tool-approval-request', approvalId: v.approvalId, toolCallId: v.toolCallId };
        if (t) e.toolName = t.name;
        if (str(v.reason)) e.reason = v.reason;
        if (pm) e.providerMetadata = pm;
        return s.out.emit(e);
      }
      case 'tool-approval-response': {
        if (!str(v.approvalId)) return s.invalid(where, 'approvalId', 'a string', v.approvalId);
        if (typeof v.approved !== 'boolean') return s.invalid(where, 'approved', 'a boolean', v.approved);
        if (v.reason !== undefined && !str(v.reason)) return s.invalid(where, 'reason', 'a string', v.reason);
        s.ensureStarted();
        const toolCallId = s.approvals.get(v.approvalId);
        const pm = merge(
          s.pmOf(v, where),
          s.extras(v, ['type', 'approvalId', 'approved', 'reason', 'providerExecuted', 'providerMetadata']),
        );
        const e: EventInit = { type: 'tool-approval-response', approvalId: v.approvalId, approved: v.approved };
        if (toolCallId !== undefined) e.toolCallId = toolCallId;
        if (str(v.reason)) e.reason = v.reason;
        if (typeof v.providerExecuted === 'boolean') e.providerExecuted = v.providerExecuted;
        if (pm) e.providerMetadata = pm;
        // A denial: the tool-output-denied that follows adds nothing (for a call this stream did not show, the next one).
        if (!v.approved && toolCallId !== undefined) s.denied.add(toolCallId);
        else if (!v.approved) s.unplacedDenials++;
        return s.out.emit(e);
      }
      case 'steering-message':
      case 'message-metadata':
        return s.custom(type, s.restOf(v, ['type']));
      case 'custom':
        if (!str(v.kind)) return s.invalid(where, 'kind', 'a string', v.kind);
        return s.custom(v.kind, s.restOf(v, ['type', 'kind']));
      case 'source-url':
      case 'source-document': {
        if (!str(v.sourceId)) return s.invalid(where, 'sourceId', 'a string', v.sourceId);
        const isUrl = type === 'source-url';
        if (isUrl && !str(v.url)) return s.invalid(where, 'url', 'a string', v.url);
        const e: EventInit = { type: 'source', sourceId: v.sourceId, kind: isUrl ? 'url' : 'document' };
        if (str(v.url)) e.url = v.url;
        if (str(v.title)) e.title = v.title;
        if (str(v.mediaType)) e.mediaType = v.mediaType;
        if (str(v.filename)) e.filename = v.filename;
        const pm = merge(s.pmOf(v, where), s.extras(v, ['type', 'sourceId', 'url', 'title', 'mediaType', 'filename', 'providerMetadata']));
        if (pm) e.providerMetadata = pm;
        s.ensureStarted();
        s.out.emit(e);
        return;
      }
      case 'file':
      case 'reasoning-file': {
        if (!str(v.url)) return s.invalid(where, 'url', 'a data: or http(s) URL string', v.url);
        if (!str(v.mediaType)) return s.invalid(where, 'mediaType', 'a string', v.mediaType);
        let pm = merge(s.pmOf(v, where), s.extras(v, ['type', 'url', 'mediaType', 'filename', 'providerMetadata']));
        if (type === 'reasoning-file') pm = merge(pm, { [FRAMEWORK]: { type } });
        s.ensureStarted();
        s.out.emit({
          type: 'file',
          url: v.url,
          mediaType: v.mediaType,
          ...(str(v.filename) ? { filename: v.filename } : {}),
          ...(pm ? { providerMetadata: pm } : {}),
        });
        return;
      }
      case 'error': {
        if (!str(v.errorText)) return s.invalid(where, 'errorText', 'a string', v.errorText);
        s.ensureStarted();
        const e: EventInit & { type: 'error' } = { type: 'error', code: 'stream_error', message: v.errorText, fatal: false };
        if (where) e.where = where;
        const pm = s.extras(v, ['type', 'errorText']);
        if (pm) e.providerMetadata = pm;
        s.held = { error: e, chunks: [] };
        return;
      }
      case 'finish': {
        s.ensureStarted();
        const reason = v.finishReason;
        let finishReason: FinishReason = s.fatal ? 'error' : 'stop';
        let rawFinishReason: string | undefined;
        if (str(reason)) {
          if (FINISH_REASONS.has(reason)) finishReason = reason as FinishReason;
          else {
            finishReason = 'other';
            rawFinishReason = reason;
          }
        } else if (reason !== undefined && reason !== null) s.invalid(where, 'finishReason', 'a finish reason string', reason);
        s.closeBlocks('the run finished before the tool input was complete');
        s.closeStep(finishReason === 'error' ? 'error' : undefined);
        const e: EventInit = { type: 'run-finish', finishReason };
        if (rawFinishReason) e.rawFinishReason = rawFinishReason;
        if (s.totalUsage) e.usage = s.totalUsage;
        let pm = s.extras(v, ['type', 'finishReason', 'messageMetadata']);
        if (v.messageMetadata !== undefined && v.messageMetadata !== null)
          pm = merge(pm, { [FRAMEWORK]: { messageMetadata: v.messageMetadata as Json } });
        if (pm) e.providerMetadata = pm;
        s.out.emit(e);
        return;
      }
      case 'abort': {
        s.ensureStarted();
        s.closeBlocks('the run was aborted');
        s.closeStep('interrupted');
        const e: EventInit = { type: 'run-abort' };
        if (str(v.reason)) e.reason = v.reason;
        s.out.emit(e);
        const rest = s.extras(v, ['type', 'reason']);
        if (rest || (v.reason !== undefined && !str(v.reason))) s.raw(v as Json, 'abort fields without a canonical place', where);
        return;
      }
      default: {
        s.ensureStarted();
        if (type.startsWith('data-') && type.length > 5) {
          if (!('data' in v)) return s.invalid(where, 'data', 'the data of a data part (any JSON value)');
          if (onlyKeys(v, ['type', 'id', 'data', 'transient']) && s.knownData(type.slice(5), v)) return;
          return s.custom(type, s.restOf(v, ['type']));
        }
        return s.raw(v as Json, `unknown chunk type ${JSON.stringify(type)}`, where);
      }
    }
  }

  return handle;
}
