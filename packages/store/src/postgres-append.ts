/**
 * The PostgreSQL store's writer: one append, or a group commit of many, each as ONE statement.
 * Apart from `postgres.ts`, so the store class stays a readable size (the 400-line limit of
 * scripts/check-function-length.ts).
 */
import type pg from 'pg';
import type { Row } from './rows.ts';
import { type Commit, ConcurrentAppendError, StoreError } from './store.ts';

/**
 * The NOTIFY channel appends are announced on (payload: `{"s":schema,"r":runId,"w":writer}`, or
 * `"r":[runId, …]` for a group commit; `w` is the writing store's id, so that it can skip its own).
 */
export const CHANNEL = 'switchboard_events';

/** Largest NOTIFY payload we send (PostgreSQL's limit is 8000 bytes). */
const NOTIFY_BYTES = 7000;

/** What an append writes through: the writer pool, the read pool (for the not-found check) and the schema. */
export interface AppendTarget {
  readonly writer: pg.Pool;
  readonly pool: pg.Pool;
  /** The quoted schema name, as it goes in SQL. */
  readonly s: string;
  /** The schema name. */
  readonly schema: string;
  /** This store's id in NOTIFY payloads (its tails already have what it commits). */
  readonly writerId: string;
}

/**
 * One append = ONE statement (one round trip): data-modifying CTEs run atomically in the
 * statement's implicit transaction. The run row moves only if its last_seq is still the expected
 * one; everything else is conditional on that, and the NOTIFY is delivered on commit.
 */
export async function commitOne(db: AppendTarget, c: Commit): Promise<void> {
  const m = c.message;
  // A named statement: parsed and planned once per connection.
  const r = await db.writer.query({
    name: `switchboard_append_${db.schema}`,
    text: `WITH moved AS (
       UPDATE ${db.s}.runs
          SET last_seq = $1::integer, status = $2::text, finish_reason = $3::text, updated_at = $4::bigint,
              message_id = COALESCE($5::text, message_id)
        WHERE id = $6::text AND last_seq = $7::integer
       RETURNING id
     ), ins AS (
       INSERT INTO ${db.s}.events (run_id, seq, type, ts, data)
       SELECT $6::text, u.seq, u.type, u.ts, u.data
         FROM unnest($8::integer[], $9::text[], $10::double precision[], $11::text[]) AS u (seq, type, ts, data)
        WHERE EXISTS (SELECT 1 FROM moved)
       RETURNING 1
     ), msg AS (
       INSERT INTO ${db.s}.messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
       SELECT $12::text, $13::text, $6::text, 'assistant', $14::text, $15::text, $16::text, $17::bigint, $18::bigint
        WHERE $12::text IS NOT NULL AND EXISTS (SELECT 1 FROM moved)
       ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, content = excluded.content, metadata = excluded.metadata,
         persistence_state = excluded.persistence_state, updated_at = excluded.updated_at
       RETURNING 1
     ), chat AS (
       UPDATE ${db.s}.chats SET updated_at = $19::bigint
        WHERE id = $13::text AND $19::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM moved)
       RETURNING 1
     ), note AS (
       SELECT pg_notify($20::text, $21::text) FROM moved
     )
     SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM ins) AS inserted,
            (SELECT count(*) FROM msg) AS messages, (SELECT count(*) FROM chat) AS chats, (SELECT count(*) FROM note) AS notified`,
    values: [
      c.run.lastSeq,
      c.run.status,
      c.run.finishReason ?? null,
      c.run.updatedAt,
      c.run.messageId ?? null,
      c.runId,
      c.expectedLastSeq,
      c.events.map((e) => e.seq),
      c.events.map((e) => e.type),
      c.events.map((e) => e.ts),
      c.events.map((e) => e.json),
      m?.id ?? null,
      c.chatId,
      m?.content ?? null,
      m ? JSON.stringify(m.metadata) : null,
      m?.persistenceState ?? null,
      m?.createdAt ?? null,
      m?.updatedAt ?? null,
      c.chatUpdatedAt ?? null,
      CHANNEL,
      JSON.stringify({ s: db.schema, r: c.runId, w: db.writerId }),
    ],
  });
  if (Number(r.rows[0]?.moved ?? 0) === 0) {
    const exists = await db.pool.query(`SELECT 1 FROM ${db.s}.runs WHERE id = $1`, [c.runId]);
    if (exists.rowCount === 0) throw new StoreError('not_found', `no run ${c.runId}`);
    throw new ConcurrentAppendError();
  }
}

/**
 * A group commit: every append in ONE statement (one round trip, one transaction). Each run row
 * moves only if its last_seq is still the expected one; its events, message and chat bump are
 * written only for the runs that moved. Runs that did not move are sorted out afterwards
 * (not_found or a concurrent writer), so one stale append never holds back the others. `undefined`:
 * the statement failed as a whole; the caller commits each append on its own.
 */
export async function commitMany(db: AppendTarget, commits: readonly Commit[]): Promise<(unknown | undefined)[] | undefined> {
  const runIds = commits.map((c) => c.runId);
  // Each table's rows as ONE JSON parameter (json_to_recordset): JSON.stringify and PostgreSQL's
  // JSON parser are both native, where the driver's array literals are escaped in JavaScript.
  const runs = commits.map((c, k) => ({
    run_id: c.runId,
    k,
    expected: c.expectedLastSeq,
    last_seq: c.run.lastSeq,
    status: c.run.status,
    finish_reason: c.run.finishReason ?? null,
    updated_at: c.run.updatedAt,
    message_id: c.run.messageId ?? null,
  }));
  // The events as columns: their commit's index, seqs, types and times as arrays of numbers and short
  // names, and their JSON texts joined by newlines (JSON.stringify never writes one): no JSON text
  // is escaped into another, which PostgreSQL's JSON parser would then unescape a character at a time.
  const ks: number[] = [];
  const seqs: number[] = [];
  const types: string[] = [];
  const times: number[] = [];
  const texts: string[] = [];
  commits.forEach((c, k) => {
    for (const e of c.events) {
      ks.push(k);
      seqs.push(e.seq);
      types.push(e.type);
      times.push(e.ts);
      texts.push(e.json);
    }
  });
  // The messages' metadata (JSON text too) the same way: joined by newlines, the k-th with the k-th row.
  const metadata: string[] = [];
  const messages = commits
    .filter((c) => c.message)
    .map((c) => {
      const m = c.message as NonNullable<Commit['message']>;
      metadata.push(JSON.stringify(m.metadata));
      return {
        id: m.id,
        chat_id: c.chatId,
        run_id: c.runId,
        content: m.content,
        state: m.persistenceState,
        created_at: m.createdAt,
        updated_at: m.updatedAt,
        k: metadata.length,
      };
    });
  const chats = commits
    .filter((c) => c.chatUpdatedAt !== undefined)
    .map((c) => ({ chat_id: c.chatId, run_id: c.runId, updated_at: c.chatUpdatedAt }));
  let r: pg.QueryResult;
  try {
    r = await db.writer.query({
      name: `switchboard_append_many_${db.schema}`,
      text: `WITH c AS (
         SELECT * FROM json_to_recordset($1::json)
           AS c (run_id text, k integer, expected integer, last_seq integer, status text, finish_reason text, updated_at bigint, message_id text)
       ), moved AS (
         UPDATE ${db.s}.runs r
            SET last_seq = c.last_seq, status = c.status, finish_reason = c.finish_reason, updated_at = c.updated_at,
                message_id = COALESCE(c.message_id, r.message_id)
           FROM c
          WHERE r.id = c.run_id AND r.last_seq = c.expected
         RETURNING r.id
       ), ins AS (
         INSERT INTO ${db.s}.events (run_id, seq, type, ts, data)
         SELECT c.run_id, u.seq, u.type, u.ts, u.data
           FROM unnest($7::integer[], $8::integer[], $9::text[], $10::double precision[], string_to_array($2::text, E'\\n'))
             AS u (k, seq, type, ts, data)
           JOIN c ON c.k = u.k
          WHERE c.run_id IN (SELECT id FROM moved)
         RETURNING 1
       ), msg AS (
         INSERT INTO ${db.s}.messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
         SELECT m.id, m.chat_id, m.run_id, 'assistant', m.content, d.metadata, m.state, m.created_at, m.updated_at
           FROM json_to_recordset($3::json)
             AS m (id text, chat_id text, run_id text, content text, state text, created_at bigint, updated_at bigint, k integer)
           JOIN unnest(string_to_array($11::text, E'\\n')) WITH ORDINALITY AS d (metadata, k) ON d.k = m.k
          WHERE m.run_id IN (SELECT id FROM moved)
         ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, content = excluded.content, metadata = excluded.metadata,
           persistence_state = excluded.persistence_state, updated_at = excluded.updated_at
         RETURNING 1
       ), chat AS (
         UPDATE ${db.s}.chats h SET updated_at = b.updated_at
           FROM (SELECT DISTINCT ON (chat_id) chat_id, run_id, updated_at
                   FROM json_to_recordset($4::json) AS b (chat_id text, run_id text, updated_at bigint)
                  WHERE b.run_id IN (SELECT id FROM moved)
                  ORDER BY chat_id, updated_at DESC) b
          WHERE h.id = b.chat_id
         RETURNING 1
       ), note AS (
         SELECT pg_notify($5::text, p) FROM unnest($6::text[]) AS p
       )
       SELECT (SELECT array_agg(id) FROM moved) AS moved, (SELECT count(*) FROM ins) AS inserted,
              (SELECT count(*) FROM msg) AS messages, (SELECT count(*) FROM chat) AS chats, (SELECT count(*) FROM note) AS notified`,
      values: [
        JSON.stringify(runs),
        texts.join('\n'),
        JSON.stringify(messages),
        JSON.stringify(chats),
        CHANNEL,
        notifyPayloads(db, runIds),
        ks,
        seqs,
        types,
        times,
        metadata.join('\n'),
      ],
    });
  } catch {
    // Something in the group is not acceptable as JSON text (a lone surrogate…) or the statement
    // failed as a whole: commit each append on its own, so only the bad one fails.
    return undefined;
  }
  const moved = new Set<string>((r.rows[0]?.moved as string[] | null) ?? []);
  const stale = commits.filter((c) => !moved.has(c.runId)).map((c) => c.runId);
  const missing = new Set<string>(stale);
  if (stale.length > 0) {
    const found = await db.pool.query(`SELECT id FROM ${db.s}.runs WHERE id = ANY($1::text[])`, [stale]);
    for (const row of found.rows as Row[]) missing.delete(row.id as string);
  }
  return commits.map((c) => {
    if (moved.has(c.runId)) return undefined;
    return missing.has(c.runId) ? new StoreError('not_found', `no run ${c.runId}`) : new ConcurrentAppendError();
  });
}

/** NOTIFY payloads naming these runs, each under PostgreSQL's size limit. */
function notifyPayloads(db: AppendTarget, runIds: readonly string[]): string[] {
  const out: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const id of runIds) {
    const size = Buffer.byteLength(id) + 3;
    if (batch.length > 0 && bytes + size > NOTIFY_BYTES) {
      out.push(JSON.stringify({ s: db.schema, r: batch, w: db.writerId }));
      batch = [];
      bytes = 0;
    }
    batch.push(id);
    bytes += size;
  }
  if (batch.length > 0) out.push(JSON.stringify({ s: db.schema, r: batch, w: db.writerId }));
  return out;
}
