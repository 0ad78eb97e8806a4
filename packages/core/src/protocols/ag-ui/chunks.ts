/**
 * `*_CHUNK` expansion and the pre-1.0 THINKING_* events, as the official client's `transformChunks`
 * and compatibility layer do them: a chunk opens (or continues) a lane per owner, the lane closes
 * when something else comes; then every event goes to `apply`.
 */
import type { Location } from '../../model/events.ts';
import { CHUNK_OPENER_FIELDS, type Ev, type Lane, LEGACY_TYPES, type Owner, type ReadState, str } from './read-state.ts';

/** Creates the dispatch of one reader: chunks expanded, legacy events renamed, lanes closed, then `apply`. */
export function createDispatch(s: ReadState, apply: (type: string, ev: Ev, where: Location | undefined) => void) {
  const { lanes, defined, fieldError, sequenceError, check } = s;

  function closeLane(owner: Owner, where: Location | undefined): void {
    const lane = lanes.get(owner);
    if (!lane) return;
    lanes.delete(owner);
    const end =
      lane.kind === 'text'
        ? { type: 'TEXT_MESSAGE_END', messageId: lane.id }
        : lane.kind === 'tool'
          ? { type: 'TOOL_CALL_END', toolCallId: lane.id }
          : { type: 'REASONING_MESSAGE_END', messageId: lane.id };
    if (owner !== undefined) (end as Ev).subagentRunId = owner;
    apply(end.type, end, where);
  }

  function closeLanes(where: Location | undefined): void {
    for (const owner of [...lanes.keys()]) closeLane(owner, where);
  }

  function laneFor(kind: Lane['kind'], id: string | undefined, owner: Owner): Owner | null {
    if (id !== undefined) {
      for (const [o, l] of lanes) if (l.kind === kind && l.id === id) return o;
      return owner;
    }
    if (owner !== undefined) return owner;
    if (lanes.get(undefined)?.kind === kind) return undefined;
    const candidates = [...lanes].filter(([, l]) => l.kind === kind);
    if (candidates.length > 1) return null;
    return candidates.length === 1 ? candidates[0][0] : undefined;
  }

  function chunk(type: string, ev: Ev, where: Location | undefined): void {
    const kind: Lane['kind'] = type === 'TEXT_MESSAGE_CHUNK' ? 'text' : type === 'TOOL_CALL_CHUNK' ? 'tool' : 'reasoning';
    const idField = kind === 'tool' ? 'toolCallId' : 'messageId';
    const id = str(ev[idField]);
    const owner = str(ev.subagentRunId);
    const laneKey = laneFor(kind, id, owner);
    if (laneKey === null)
      return sequenceError(
        'invalid_field',
        `${type} without ${idField} or subagentRunId while several lanes are open`,
        where,
        idField,
        'an id or a subagentRunId',
      );
    const open = lanes.get(laneKey);
    let current: string;
    let metadataUsed = false;
    if (open?.kind === kind && (id === undefined || id === open.id)) current = open.id;
    else {
      closeLane(laneKey, where);
      if (id === undefined) return fieldError(type, idField, `a string on the first ${type}`, undefined, where);
      let start: Ev =
        kind === 'text'
          ? { type: 'TEXT_MESSAGE_START', messageId: id, role: ev.role ?? 'assistant', name: ev.name }
          : kind === 'tool'
            ? { type: 'TOOL_CALL_START', toolCallId: id, toolCallName: ev.toolCallName, parentMessageId: ev.parentMessageId }
            : { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' };
      if (kind === 'tool' && typeof ev.toolCallName !== 'string')
        return fieldError(type, 'toolCallName', `a string on the first ${type}`, undefined, where);
      if (owner !== undefined) start.subagentRunId = owner;
      if (ev.metadata !== undefined) {
        start.metadata = ev.metadata;
        metadataUsed = true;
      }
      start = defined(start);
      if (!check(start.type as string, start, where)) return;
      apply(start.type as string, start, where);
      lanes.set(laneKey, { kind, id });
      current = id;
    }
    // The chunk's other fields travel on the content event, as transformChunks does (role, name,
    // toolCallName and parentMessageId of a continuation must repeat the opener's: nothing new).
    const content: Ev = {};
    let more = false;
    for (const k in ev) {
      if (CHUNK_OPENER_FIELDS.has(k) || k === idField || (k === 'metadata' && metadataUsed)) continue;
      content[k] = ev[k];
      if (k !== 'timestamp') more = true;
    }
    if (ev.delta !== undefined || more) {
      content.type = kind === 'text' ? 'TEXT_MESSAGE_CONTENT' : kind === 'tool' ? 'TOOL_CALL_ARGS' : 'REASONING_MESSAGE_CONTENT';
      content[idField] = current;
      content.delta = ev.delta ?? '';
      if (owner !== undefined) content.subagentRunId = owner;
      if (check(content.type as string, content, where)) apply(content.type as string, content, where);
    }
  }

  function legacy(type: string, ev: Ev, where: Location | undefined): void {
    const mint = () => `thinking-${++s.legacyCount}`;
    switch (type) {
      case 'THINKING_START':
        s.legacySpan = mint();
        return dispatch({ ...ev, type: 'REASONING_START', messageId: s.legacySpan }, where);
      case 'THINKING_END': {
        const id = s.legacySpan ?? mint();
        s.legacySpan = undefined;
        return dispatch({ ...ev, type: 'REASONING_END', messageId: id }, where);
      }
      case 'THINKING_TEXT_MESSAGE_START':
        s.legacyMessage = s.legacySpan ?? mint();
        return dispatch({ ...ev, type: 'REASONING_MESSAGE_START', messageId: s.legacyMessage, role: 'reasoning' }, where);
      case 'THINKING_TEXT_MESSAGE_CONTENT':
        s.legacyMessage ??= mint();
        return dispatch({ ...ev, type: 'REASONING_MESSAGE_CONTENT', messageId: s.legacyMessage }, where);
      default: {
        const id = s.legacyMessage ?? mint();
        s.legacyMessage = undefined;
        return dispatch({ ...ev, type: 'REASONING_MESSAGE_END', messageId: id }, where);
      }
    }
  }

  /** One AG-UI event (already checked): lanes first, then the event. */
  function dispatch(ev: Ev, where: Location | undefined): void {
    const type = ev.type as string;
    if (!check(type, ev, where)) return;
    const owner = str(ev.subagentRunId);
    switch (type) {
      case 'TEXT_MESSAGE_CHUNK':
      case 'TOOL_CALL_CHUNK':
      case 'REASONING_MESSAGE_CHUNK':
        return chunk(type, ev, where);
      case 'RUN_STARTED':
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
      case 'MESSAGES_SNAPSHOT':
        closeLanes(where);
        break;
      case 'RAW':
      case 'ACTIVITY_SNAPSHOT':
      case 'ACTIVITY_DELTA':
      case 'REASONING_ENCRYPTED_VALUE':
      case 'SUBAGENT_STARTED':
        break;
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        closeLane(owner, where);
        break;
      default:
        if ((LEGACY_TYPES as readonly string[]).includes(type)) return legacy(type, ev, where);
        closeLane(owner, where);
    }
    apply(type, ev, where);
  }

  return dispatch;
}
