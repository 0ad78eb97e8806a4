/**
 * The decoder kit: what every framework decoder is built from.
 * - `read.ts`: small readers (`str`, `num`, `rest`, `kindOf`, `parseToolInput`);
 * - `report.ts`: {@link Kit}, the emitter with located `error` / `invalid` / `raw` helpers, the
 *   envelope guard and the push / fault / end shell;
 * - `sources.ts`: the sources a final answer lists, as `source` events;
 * - `steps.ts`: steps for formats without step markers, and what a run's steps add up to for its run-finish;
 * - `agent-lines.ts`: the `{"type","data"}` agent-line skeleton that dialects fill with handler tables.
 */
export {
  type AgentLine,
  type AgentLineContext,
  type AgentLineDialect,
  type AgentLineHandlers,
  createAgentLineDecoder,
} from './agent-lines.ts';
export { isObject, kindOf, num, type Obj, parseToolInput, rest, shown, str, sub, type ToolInput } from './read.ts';
export { type DecoderParts, Kit, type KitNames } from './report.ts';
export { emitAnswerSources } from './sources.ts';
export { StepTotals } from './steps.ts';
