/** The store contract against SQLite, and what only SQLite has: the file, WAL, a process killed mid-run. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { validate } from '@switchboard/core/schema';

import { openStore, sqlitePathOf } from '../src/open.ts';
import { project } from '../src/projection.ts';
import { runInsertValues } from '../src/rows.ts';
import { defaultSqlitePath, openSqliteStore } from '../src/sqlite.ts';
import { openSqliteConnection, SQLITE_MIGRATIONS } from '../src/sqlite-writer.ts';
import { contract } from './contract.ts';
import { demoRun, rid, sqliteSetup } from './support.ts';

contract('SQLite', sqliteSetup());
// Again with every write on the event loop (a file's default is the writer thread).
contract('SQLite, writes inline', sqliteSetup({ writer: 'inline' }));

const NODE = process.execPath;
const CHILD = new URL('./fixtures/crash-child.ts', import.meta.url).pathname;

describe('SQLite specifics', () => {
  test('the file is in WAL mode with a busy timeout, savepoint journals in memory; the default path follows SWITCHBOARD_DATA_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-sqlite-'));
    try {
      const path = join(dir, 'nested', 'x.db');
      const store = await openSqliteStore({ path });
      await store.createChat({ id: 'c' });
      await store.close();
      const db = new DatabaseSync(path);
      assert.deepEqual({ ...db.prepare('PRAGMA journal_mode').get() }, { journal_mode: 'wal' });
      assert.deepEqual(
        db
          .prepare('SELECT version FROM schema_migrations')
          .all()
          .map((r) => r.version),
        [1, 2, 3],
      );
      db.close();
      // The store's own connections (reader and writer thread) keep savepoint journals in memory:
      // a group commit opens one per write, and a temporary file cost a system call per page.
      const own = openSqliteConnection(path);
      assert.deepEqual({ ...own.prepare('PRAGMA temp_store').get() }, { temp_store: 2 });
      own.close();
      assert.equal(defaultSqlitePath({ SWITCHBOARD_DATA_DIR: '/srv/sb' }), '/srv/sb/switchboard.db');
      assert.equal(defaultSqlitePath({}), './data/switchboard.db');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a version 2 database (events clustered by run) upgrades: every event kept, in order, appends go on, deletes cascade', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-upgrade-'));
    try {
      const path = join(dir, 'v2.db');
      const old = new DatabaseSync(path);
      old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
      for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 2)) {
        old.exec(m.sql);
        old.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.version, m.name);
      }
      old.prepare("INSERT INTO chats (id, created_at, updated_at) VALUES ('c', 1, 1)").run();
      // Two runs written the version 2 way: one complete, one still running halfway.
      const done = demoRun('hello there', rid('done'));
      const live = demoRun('tool Rome', rid('live'));
      const half = Math.floor(live.length / 2);
      const rows = [
        { events: done, status: 'complete' },
        { events: live.slice(0, half), status: 'running' },
      ];
      for (const { events, status } of rows) {
        const runId = events[0].runId;
        old
          .prepare(
            `INSERT INTO runs (id, chat_id, message_id, user_message_id, status, last_seq, created_at, updated_at, lease_holder, lease_until)
               VALUES (?, ?, ?, ?, ?, ${events.length - 1}, ?, ?, ?, ?)`,
          )
          .run(...runInsertValues({ id: runId, chatId: 'c', status, lastSeq: -1, createdAt: 1, updatedAt: 1 } as never));
        for (const e of events)
          old
            .prepare('INSERT INTO events (run_id, seq, type, ts, data) VALUES (?, ?, ?, ?, ?)')
            .run(runId, e.seq, e.type, e.ts, JSON.stringify(e));
      }
      old.close();

      const store = await openSqliteStore({ path });
      assert.equal(store.schemaVersion(), 3);
      assert.deepEqual(await store.read(done[0].runId), done);
      assert.deepEqual(await store.read(live[0].runId, { after: 1, limit: 2 }), live.slice(2, 4));
      await store.append(live.slice(half));
      assert.deepEqual(await store.read(live[0].runId), live);
      assert.equal((await store.getRun(live[0].runId))?.status, 'complete');
      // A run started after the upgrade gets the next key, and its events are its own.
      const next = demoRun('hello again', rid('next'));
      await store.startRun({ runId: next[0].runId, chatId: 'c' });
      await store.append(next);
      assert.deepEqual(await store.read(next[0].runId), next);
      assert.deepEqual(await store.read(done[0].runId), done);
      assert.equal(await store.deleteChat('c'), true);
      await store.close();
      const db = new DatabaseSync(path);
      assert.deepEqual({ ...db.prepare('SELECT COUNT(*) AS n FROM events').get() }, { n: 0 });
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the database file is created owner-only (0600) in a directory created owner-only (0700)', async (t) => {
    if (process.platform === 'win32') return t.skip('POSIX modes');
    const dir = mkdtempSync(join(tmpdir(), 'sb-mode-'));
    const old = process.umask(0o022);
    try {
      const path = join(dir, 'new', 'deeper', 'x.db');
      const store = await openSqliteStore({ path });
      await store.createChat({ id: 'c' });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(statSync(`${path}-wal`).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'new', 'deeper')).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, 'new')).mode & 0o777, 0o700);
      await store.close();
      // An existing file with a loose mode is tightened when opened.
      chmodSync(path, 0o644);
      await (await openSqliteStore({ path })).close();
      assert.equal(statSync(path).mode & 0o777, 0o600);
    } finally {
      process.umask(old);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('openStore picks the backend from the URL', async () => {
    assert.equal(sqlitePathOf('sqlite:data/x.db'), 'data/x.db');
    assert.equal(sqlitePathOf('sqlite:./x.db'), './x.db');
    assert.equal(sqlitePathOf('sqlite:///abs/x.db'), '/abs/x.db');
    assert.equal(sqlitePathOf('sqlite:/abs/x.db'), '/abs/x.db');
    assert.equal(sqlitePathOf('sqlite::memory:'), ':memory:');
    const store = await openStore('sqlite::memory:');
    assert.equal(store.kind, 'sqlite');
    await store.close();
    await assert.rejects(openStore('mysql://x'), /cannot tell the store/);
  });

  test('a process killed with SIGKILL mid-run: every append that returned is there, the partial message projects, then closes with an error state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-crash-'));
    const path = join(dir, 'crash.db');
    try {
      const child = spawn(NODE, [CHILD, path, 'chat-crash', 'run-crash'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      let confirmed = -1;
      for await (const line of createInterface({ input: child.stdout })) {
        const m = /^appended (\d+)$/.exec(line);
        if (m) confirmed = Number(m[1]);
        if (confirmed >= 300) {
          child.kill('SIGKILL');
          break;
        }
      }
      assert.equal(await exited, 'SIGKILL');

      const store = await openSqliteStore({ path });
      try {
        const log = await store.read('run-crash');
        assert.ok(log.length - 1 >= confirmed, `seq ${confirmed} was confirmed, the log ends at ${log.length - 1}`);
        assert.deepEqual(
          log.map((e) => e.seq),
          log.map((_, i) => i),
          'no gap',
        );
        const [user, partial] = await store.listMessages('chat-crash');
        assert.equal(user.content, 'crash me');
        assert.ok(partial.role === 'assistant');
        assert.equal(partial.persistenceState, 'pending');
        assert.deepEqual(partial, project(log, { runId: 'run-crash', chatId: 'chat-crash', messageId: 'msg_run-crash' }, 'pending'));
        assert.ok(partial.content.startsWith('w0 w1 · w2 · w3 '));

        assert.deepEqual(await store.recoverRuns(), ['run-crash']);
        const closed = await store.read('run-crash');
        assert.deepEqual(validate(closed).issues, []);
        const [, final] = await store.listMessages('chat-crash');
        assert.ok(final.role === 'assistant');
        assert.equal(final.persistenceState, 'persisted');
        assert.equal(final.metadata.status, 'error');
        assert.equal(final.metadata.error?.code, 'interrupted');
        assert.equal(final.content, partial.content, 'the partial text is kept');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
