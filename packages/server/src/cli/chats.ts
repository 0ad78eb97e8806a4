/**
 * `switchboard chats list | export <id>`: the stored chats, read from the store the configuration
 * names (SQLite in SWITCHBOARD_DATA_DIR, PostgreSQL with DATABASE_URL, SWITCHBOARD_STORE_URL) — no
 * server needed, no authentication (whoever can read the store can read the chats).
 *
 * - `list`: one line per chat (id, updated, runs, owner, title), most recently updated first;
 *   `--format json` for JSON;
 * - `export <id>`: the conversation as `--protocol` history (ai-sdk UIMessage[], ag-ui
 *   MESSAGES_SNAPSHOT, timeline, canonical), JSON on stdout or `-o`.
 *
 * Exit 0; 1 when the store cannot be opened or the chat does not exist; 2 on usage errors.
 */
import { HISTORY_PROTOCOLS, type HistoryProtocol, isHistoryProtocol, loadHistory, type Store } from '@switchboard/store';

import { ConfigError, loadConfig } from '../config/load.ts';
import { openGatewayStore, storeSettingsOf } from '../server/gateway-store.ts';
import { CliIoError, openOutput } from './io.ts';

function usage(message: string): number {
  process.stderr.write(`switchboard chats: ${message}\nRun "switchboard chats --help" for the options.\n`);
  return 2;
}

/** Opens the store of the configuration (`--config`, else the default file and the environment). */
export async function openConfiguredStore(
  configPath: string | undefined,
  command: string,
): Promise<{ store: Store; close: () => Promise<void> } | number> {
  try {
    const config = await loadConfig(configPath !== undefined ? { path: configPath } : {});
    const opened = await openGatewayStore(storeSettingsOf(config.server, process.env, { fanout: false }));
    return { store: opened.store, close: opened.close };
  } catch (err) {
    const message =
      err instanceof ConfigError ? `invalid configuration\n${err.message}` : `cannot open the store: ${(err as Error).message}`;
    process.stderr.write(`switchboard ${command}: ${message}\n`);
    return 1;
  }
}

function pad(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

async function list(store: Store, flags: Record<string, string | undefined>, limit: number): Promise<number> {
  const chats = await store.listChats({ limit });
  const withRuns = await Promise.all(chats.map(async (c) => ({ chat: c, runs: await store.listRuns(c.id) })));
  if (flags.format === 'json') {
    const out = withRuns.map(({ chat, runs }) => ({ ...chat, runs: runs.length, lastStatus: runs.at(-1)?.status ?? null }));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  if (chats.length === 0) {
    process.stdout.write('no chats\n');
    return 0;
  }
  const rows = [['ID', 'UPDATED (UTC)', 'RUNS', 'LAST', 'OWNER', 'TITLE']];
  for (const { chat, runs } of withRuns) {
    const owner = typeof chat.metadata?.owner === 'string' ? chat.metadata.owner : '-';
    rows.push([chat.id, when(chat.updatedAt), String(runs.length), runs.at(-1)?.status ?? '-', owner, chat.title ?? '']);
  }
  process.stdout.write(`${pad(rows)}\n`);
  return 0;
}

async function exportChat(store: Store, id: string, protocol: HistoryProtocol, flags: Record<string, string | undefined>): Promise<number> {
  if (!(await store.getChat(id))) {
    process.stderr.write(`switchboard chats: no chat ${JSON.stringify(id)}\n`);
    return 1;
  }
  const history = await loadHistory(store, id, protocol);
  try {
    const out = await openOutput(flags.output);
    await out.write(`${JSON.stringify(history, null, 2)}\n`);
    await out.close();
  } catch (err) {
    if (!(err instanceof CliIoError)) throw err;
    process.stderr.write(`switchboard chats: ${err.message}\n`);
    return 1;
  }
  return 0;
}

/** Runs `chats`. */
export async function run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number> {
  const [sub, id] = positionals;
  if (sub === undefined) return usage('missing the subcommand: list or export <id>');
  if (sub !== 'list' && sub !== 'export') return usage(`unknown subcommand "${sub}"; expected list or export`);
  if (sub === 'list' && id !== undefined) return usage(`unexpected argument "${id}"`);
  if (sub === 'export' && id === undefined) return usage('missing the chat id: switchboard chats export <id>');
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) return usage(`invalid --limit "${flags.limit}"; expected a positive integer`);
  const protocol = flags.protocol ?? 'ai-sdk';
  if (!isHistoryProtocol(protocol)) return usage(`invalid --protocol "${protocol}"; expected one of: ${HISTORY_PROTOCOLS.join(', ')}`);
  const opened = await openConfiguredStore(flags.config, 'chats');
  if (typeof opened === 'number') return opened;
  try {
    return sub === 'list' ? await list(opened.store, flags, limit) : await exportChat(opened.store, id as string, protocol, flags);
  } finally {
    await opened.close();
  }
}
