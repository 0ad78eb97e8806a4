/**
 * The group commit's schedule, counted, not timed: what goes into which group. A group starts at
 * the end of the event loop's turn, urgent writes (a run's start and first events) go first, the
 * rest fill a group up to a number of events.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { GroupCommit, type GroupLimits, POSTGRES_GROUP } from '../src/group-commit.ts';

/** A write: a name and its number of events. */
interface W {
  name: string;
  size: number;
}

/** A group commit over a fake backend that records each group (and can fail one write). */
function recorder(limits: GroupLimits, failing?: string) {
  const groups: string[][] = [];
  const write = (ws: readonly W[]) => {
    groups.push(ws.map((w) => w.name));
    return ws.map((w) => (w.name === failing ? new Error(`${w.name} failed`) : undefined));
  };
  const gc = new GroupCommit<W>(
    async (w) => {
      const [err] = write([w]);
      if (err) throw err;
    },
    async (ws) => write(ws),
    limits,
  );
  const commit = (name: string, size = 1, urgent = false) => gc.commit({ name, size }, size, urgent);
  return { gc, groups, commit };
}

const LIMITS: GroupLimits = { maxEvents: 250, maxEventsWithUrgent: 50 };

/** A group commit over a backend that holds every group until the test lets it go (`release[k]()`, the k-th group sent). */
function holding(limits: GroupLimits) {
  const sent: string[][] = [];
  const release: (() => void)[] = [];
  const gc = new GroupCommit<W>(
    async () => {},
    (ws) =>
      new Promise((resolve) => {
        sent.push(ws.map((w) => w.name));
        release.push(() => resolve(ws.map(() => undefined)));
      }),
    limits,
  );
  return { gc, sent, release };
}

describe('group commit', () => {
  test('everything queued in one turn is one group, written at the end of the turn (not in the middle of it)', async () => {
    const { groups, commit } = recorder(LIMITS);
    const done = Array.from({ length: 200 }, (_, i) => commit(`w${i}`));
    // However long this turn takes, nothing is written before it ends.
    let spin = 0;
    for (let i = 0; i < 1e6; i++) spin += i;
    assert.ok(spin > 0);
    assert.equal(groups.length, 0);
    await Promise.all(done);
    assert.equal(groups.length, 1);
    assert.equal(groups[0]?.length, 200);
  });

  test('a group holds at most maxEvents events of non-urgent writes, first in first out; one large write always goes', async () => {
    const { groups, commit } = recorder(LIMITS);
    await Promise.all([commit('a', 100), commit('b', 100), commit('c', 100), commit('d', 400), commit('e', 10)]);
    assert.deepEqual(groups, [['a', 'b'], ['c'], ['d'], ['e']]);
  });

  test('urgent writes go into the next group ahead of the queue, which then gets a smaller share', async () => {
    const { groups, commit } = recorder(LIMITS);
    const queued = [commit('a', 40), commit('b', 40), commit('c', 40), commit('d', 200)];
    const urgent = [commit('start1', 1, true), commit('start2', 1, true)];
    await Promise.all([...queued, ...urgent]);
    // Group 1: both urgent writes, then queued writes up to 50 events (one always goes); group 2: up to 250.
    assert.deepEqual(groups, [['start1', 'start2', 'a'], ['b', 'c'], ['d']]);
  });

  test('an urgent write queued while a group is in flight goes into the next group, before older queued writes', async () => {
    const { groups, commit } = recorder(LIMITS);
    const first = commit('a', 250);
    const rest = [commit('b', 250), commit('c', 250)];
    // Queued after `a`'s group has started (a microtask after its turn ended), before `b`'s.
    setImmediate(() => void commit('start', 1, true));
    await Promise.all([first, ...rest]);
    assert.deepEqual(groups, [['a'], ['start', 'b'], ['c']]);
  });

  test('a failed write rejects its own commit only', async () => {
    const { groups, commit } = recorder(LIMITS, 'bad');
    const results = await Promise.allSettled([commit('ok1'), commit('bad'), commit('ok2')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal(groups.length, 1);
  });

  test('with inFlight 2 the next group is sent while the last commits; acknowledgements keep their order', async () => {
    // A writer thread: it lets the groups go in order.
    const { gc, sent, release } = holding({ maxEvents: 2, maxEventsWithUrgent: 2, inFlight: 2 });
    const acked: string[] = [];
    const commit = (name: string) => gc.commit({ name, size: 1 }, 1).then(() => acked.push(name));
    const all = ['a', 'b', 'c', 'd', 'e', 'f'].map(commit);
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    await turn();
    await turn();
    // Two groups in flight, the third waits for one of them.
    assert.deepEqual(sent, [
      ['a', 'b'],
      ['c', 'd'],
    ]);
    release[0]?.();
    await turn();
    await turn();
    assert.deepEqual(acked, ['a', 'b']);
    assert.deepEqual(sent.at(-1), ['e', 'f']);
    release[1]?.();
    release[2]?.();
    await Promise.all(all);
    assert.deepEqual(acked, ['a', 'b', 'c', 'd', 'e', 'f']);
    assert.equal(sent.length, 3);
  });

  test("PostgreSQL's limits: a burst's backlog goes as three groups of at most 4,000 events at once, each acknowledged on its own", async () => {
    // A server: it lets the groups go in any order (connections of their own).
    const { gc, sent, release } = holding(POSTGRES_GROUP);
    const acked = new Set<string>();
    const names = Array.from({ length: 120 }, (_, i) => `r${i}`);
    const all = names.map((name) => gc.commit({ name, size: 100 }, 100).then(() => acked.add(name)));
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    for (let i = 0; i < 4; i++) await turn();
    // 12,000 events: three groups of 40 appends (4,000 events) in flight, nothing left for a fourth.
    assert.deepEqual(
      sent.map((g) => g.length),
      [40, 40, 40],
    );
    assert.deepEqual(sent.flat(), names);
    // The second group's commit ends first: its appends resolve, the others still wait.
    release[1]?.();
    for (let i = 0; i < 2; i++) await turn();
    assert.deepEqual([...acked], sent[1]);
    release[0]?.();
    release[2]?.();
    await Promise.all(all);
    assert.equal(acked.size, 120);
  });

  test('drain() resolves once everything queued is written, over as many groups as it takes', async () => {
    const { gc, groups, commit } = recorder(LIMITS);
    const all = Array.from({ length: 10 }, (_, i) => commit(`w${i}`, 100));
    await gc.drain();
    assert.equal(groups.flat().length, 10);
    assert.equal(groups.length, 5);
    await Promise.all(all);
  });
});
