/**
 * Budgeted turns of the event loop: the work of runs already streaming yields to the poll phase,
 * where Node accepts connections and reads new requests.
 *
 * Node runs every callback queued with `setImmediate` before the check phase began in that one
 * phase, with no poll in between: 1,000 streaming runs each continued by an immediate (a commit
 * acknowledged, a pump taking a breath) make a check phase of ~1 s during which no request is read
 * and no connection accepted. `nextTurn()` resolves in a check phase only while that phase has
 * spent less than TURN_BUDGET_MS; past it, the continuation moves to the next loop iteration,
 * after a poll. Order is kept (first queued, first continued). Each continuation's microtasks run
 * before the next one's budget check (Node drains them between immediates), so the budget counts
 * the work it triggers.
 */

/** Most time continuations may take in one check phase before the loop polls again (ms). */
export const TURN_BUDGET_MS = 5;

/** When the current check phase's first continuation ran (performance.now()), or -1 outside one. */
let phaseStart = -1;

function endPhase(): void {
  phaseStart = -1;
}

function onImmediate(resolve: () => void): void {
  const now = performance.now();
  if (phaseStart < 0) {
    phaseStart = now;
    // Queued before any continuation deferred below, so it runs first in the next check phase.
    setImmediate(endPhase);
  }
  if (now - phaseStart > TURN_BUDGET_MS) setImmediate(onImmediate, resolve);
  else resolve();
}

/** Resolves in a later turn of the event loop, once the loop has time for it (see the module comment). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(onImmediate, resolve));
}
