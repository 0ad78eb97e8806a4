/**
 * The PostgreSQL store's run starts in the group commit: a burst of `startRun` / `createChat` is
 * ONE round trip, `start_runs(json)`, a function the schema holds (migration 3). It takes the starts
 * in queue order, each in a block of its own (a subtransaction: one that fails leaves the others
 * in), with the same rules as one start on its own had (postgres.ts `dbCreateRun`): a new chat must
 * not exist; an existing chat's row is locked by bumping its `updated_at`, so starts in one chat
 * are serialised across instances, and the `exclusive` check that follows — a statement of its own,
 * so it sees every start committed before the lock was granted — cannot race another start; a run
 * that exists is left as it is. Apart from `postgres.ts`, which stays under the 400-line limit of
 * scripts/check-function-length.ts.
 */
import type pg from 'pg';
import { ownerColumn } from './rows.ts';
import { chatExists, inProgress, type StartWrite, StoreError } from './store.ts';

/** Migration 3: the function that writes a group's run starts. `s` is the quoted schema. */
export function startRunsFunction(s: string): string {
  return `
    CREATE FUNCTION ${s}.start_runs(items json) RETURNS json LANGUAGE plpgsql AS $fn$
    DECLARE
      it json;
      c json;
      r json;
      u json;
      n integer;
      blocker text;
      results json[] := '{}';
    BEGIN
      FOR it IN SELECT value FROM json_array_elements(items) LOOP
        BEGIN
          c := it->'chat';
          r := it->'run';
          u := it->'user';
          IF (it->>'newChat')::boolean THEN
            INSERT INTO ${s}.chats (id, title, metadata, owner, created_at, updated_at)
              VALUES (c->>'id', c->>'title', c->>'metadata', c->>'owner', (c->>'createdAt')::bigint, (c->>'updatedAt')::bigint)
              ON CONFLICT (id) DO NOTHING;
            GET DIAGNOSTICS n = ROW_COUNT;
            IF n = 0 THEN
              results := results || json_build_object('chatExists', true);
              CONTINUE;
            END IF;
            IF json_typeof(r) IS DISTINCT FROM 'object' THEN
              results := results || json_build_object('inserted', true);
              CONTINUE;
            END IF;
          ELSE
            INSERT INTO ${s}.chats (id, title, metadata, owner, created_at, updated_at)
              VALUES (c->>'id', c->>'title', c->>'metadata', c->>'owner', (c->>'createdAt')::bigint, (c->>'updatedAt')::bigint)
              ON CONFLICT (id) DO NOTHING;
            -- Locks the chat's row until commit: the check below sees any start committed before.
            UPDATE ${s}.chats SET updated_at = (r->>'createdAt')::bigint WHERE id = r->>'chatId';
            IF (it->>'exclusive')::boolean THEN
              SELECT id INTO blocker FROM ${s}.runs
               WHERE chat_id = r->>'chatId' AND status = 'running' AND id <> r->>'id' LIMIT 1;
              IF blocker IS NOT NULL THEN
                -- Undoes this start's chat writes (the block is a subtransaction).
                RAISE EXCEPTION USING ERRCODE = 'SB001', MESSAGE = blocker;
              END IF;
            END IF;
          END IF;
          INSERT INTO ${s}.runs (id, chat_id, message_id, user_message_id, status, last_seq, created_at, updated_at, lease_holder, lease_until)
            VALUES (r->>'id', r->>'chatId', r->>'messageId', r->>'userMessageId', r->>'status', -1, (r->>'createdAt')::bigint,
                    (r->>'updatedAt')::bigint, r->>'leaseHolder', (r->>'leaseUntil')::bigint)
            ON CONFLICT (id) DO NOTHING;
          GET DIAGNOSTICS n = ROW_COUNT;
          IF n > 0 AND json_typeof(u) = 'object' THEN
            INSERT INTO ${s}.messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
              VALUES (u->>'id', u->>'chatId', u->>'runId', u->>'role', u->>'content', u->>'metadata', u->>'persistenceState',
                      (u->>'createdAt')::bigint, (u->>'updatedAt')::bigint)
              ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, content = excluded.content, metadata = excluded.metadata,
                persistence_state = excluded.persistence_state, updated_at = excluded.updated_at;
          END IF;
          results := results || json_build_object('inserted', n > 0);
        EXCEPTION
          WHEN SQLSTATE 'SB001' THEN results := results || json_build_object('blocker', SQLERRM);
          WHEN OTHERS THEN results := results || json_build_object('error', SQLERRM, 'code', SQLSTATE);
        END;
      END LOOP;
      RETURN array_to_json(results);
    END
    $fn$;
  `;
}

/** What `start_runs` says about one start. */
interface StartResult {
  inserted?: boolean;
  chatExists?: boolean;
  blocker?: string;
  error?: string;
  code?: string;
}

/**
 * Writes a group's run starts (and chat creations) in one call of `start_runs`: per write,
 * undefined when it is done (`inserted` set on a run start), else its error.
 */
export async function startMany(pool: pg.Pool, s: string, writes: readonly StartWrite[]): Promise<(unknown | undefined)[]> {
  // In chat id order (queue order within a chat): every group locks chat rows in the same order, so
  // two instances' groups cannot deadlock on each other's chats.
  const order = writes
    .map((_, i) => i)
    .sort((a, b) => compare((writes[a] as StartWrite).chat.id, (writes[b] as StartWrite).chat.id) || a - b);
  const items = order.map((k) => {
    const w = writes[k] as StartWrite;
    const chat = {
      id: w.chat.id,
      title: w.chat.title ?? null,
      metadata: w.chat.metadata ? JSON.stringify(w.chat.metadata) : null,
      owner: ownerColumn(w.chat),
      createdAt: w.chat.createdAt,
      updatedAt: w.chat.updatedAt,
    };
    if (w.kind === 'chat') return { newChat: true, chat };
    const u = w.user;
    return {
      newChat: w.newChat,
      exclusive: w.exclusive,
      chat,
      run: w.run,
      ...(u ? { user: { ...u, runId: u.runId ?? null, metadata: JSON.stringify(u.metadata) } } : {}),
    };
  });
  const r = await pool.query(`SELECT ${s}.start_runs($1::json) AS results`, [JSON.stringify(items)]);
  const sorted = r.rows[0].results as StartResult[];
  const results: StartResult[] = [];
  order.forEach((k, i) => {
    results[k] = sorted[i] ?? { error: 'no result' };
  });
  return writes.map((w, i) => {
    const res = results[i] as StartResult;
    if (res.chatExists) return chatExists(w.chat.id);
    if (res.blocker !== undefined) return w.kind === 'run' && res.blocker !== w.run.id ? inProgress(w.run.chatId, res.blocker) : undefined;
    if (res.error !== undefined)
      return new StoreError('invalid', `starting ${w.kind === 'run' ? `run ${w.run.id}` : `chat ${w.chat.id}`}: ${res.error}`);
    if (w.kind === 'run') w.inserted = res.inserted === true;
    return undefined;
  });
}

/** One order of chat ids for every instance (UTF-16 code units, as `<` compares strings). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
