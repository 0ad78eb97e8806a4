/**
 * The CLI's command table: flags, help text and the module that runs each command. Imports nothing
 * heavy, so `--help` and usage errors answer without loading the core or zod.
 */
import { FRAMEWORK_NAMES, PROTOCOL_NAMES } from '@switchboard/core/names';

/** One flag of a command, in `node:util` `parseArgs` terms plus what the help shows. */
export interface FlagSpec {
  /** Long name, without the dashes. */
  name: string;
  short?: string;
  /** Placeholder of the value; absent for boolean flags. */
  value?: string;
  /** The value when the flag is given without one (`--think-tags` = `--think-tags=think`); only `--flag=value` then sets another. */
  optionalValue?: string;
  /** Accepted values (checked after parsing). */
  choices?: readonly string[];
  default?: string;
  required?: boolean;
  help: string;
}

/** What a command module exports. */
export interface CommandModule {
  /** Runs the command with its parsed flags and positionals; resolves to the exit code. */
  run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number>;
}

/** One command. */
export interface CommandSpec {
  name: string;
  summary: string;
  /** Usage line after `switchboard <name>`. */
  synopsis: string;
  /** Extra help paragraphs. */
  details: string;
  flags: FlagSpec[];
  /** Most positionals accepted. */
  maxPositionals: number;
  /** Loaded only when the command runs. */
  load(): Promise<CommandModule>;
}

// The flags several commands share, defined once so their help reads the same everywhere.
const HELP_FLAG: FlagSpec = { name: 'help', short: 'h', help: 'Show this help.' };
const CONFIG_FLAG: FlagSpec = { name: 'config', short: 'c', value: 'file', help: 'Config file to read.' };
const TO_FLAG: FlagSpec = {
  name: 'to',
  short: 't',
  value: 'protocol',
  choices: PROTOCOL_NAMES,
  default: 'ai-sdk',
  help: 'Output protocol.',
};
const OUTPUT_FLAG: FlagSpec = { name: 'output', short: 'o', value: 'file', help: 'Write to this file instead of stdout.' };
const NAMESPACE_FLAG: FlagSpec = {
  name: 'namespace',
  value: 'ns',
  default: 'switchboard',
  help: "providerMetadata key of the reasoning variant (ai-sdk output); mobox also follows the mobox UI's formatter.",
};
/** `--from` of the commands that read a capture, which may also be a stored canonical run. */
const CAPTURE_FROM_FLAG: FlagSpec = {
  name: 'from',
  short: 'f',
  value: 'framework',
  choices: ['auto', 'canonical', ...FRAMEWORK_NAMES],
  default: 'auto',
  help: 'Framework of the capture.',
};

/** `--format` of the converting commands; `defaults` says which framing each protocol gets. */
function outputFormatFlag(defaults: string): FlagSpec {
  return { name: 'format', value: 'format', choices: ['sse', 'jsonl'], default: defaults, help: 'Output framing.' };
}

/** Every command, by name. */
export const COMMANDS: Record<string, CommandSpec> = {
  convert: {
    name: 'convert',
    summary: "Convert an agent framework's stream into a UI protocol.",
    synopsis: 'convert [--from <framework>] [--to <protocol>] [options] [file|-]',
    details: [
      'Reads an SSE body or JSON lines (recognised by itself) from the file, or stdin when the file is',
      'omitted or "-", and writes the converted stream to stdout (or -o). ai-sdk output is the SSE body',
      'the official AI SDK server sends, ending with "data: [DONE]"; canonical output is one JSON event',
      'per line (or SSE with id: = seq). Errors found in the input are part of the output; a one-line',
      'summary of them goes to stderr and the exit code stays 0. Exit 1 on I/O errors, 2 on usage errors.',
    ].join('\n'),
    flags: [
      { name: 'from', short: 'f', value: 'framework', choices: ['auto', ...FRAMEWORK_NAMES], default: 'auto', help: 'Input framework.' },
      TO_FLAG,
      outputFormatFlag('sse for ai-sdk, jsonl for canonical'),
      OUTPUT_FLAG,
      NAMESPACE_FLAG,
      {
        name: 'input-format',
        value: 'format',
        choices: ['sse', 'jsonl'],
        help: 'Input framing, instead of recognising it (SSE when the first line is data:/event:/id:/retry:/: comment, else JSON lines).',
      },
      { name: 'verbose', short: 'v', help: 'Say on stderr how the input is read.' },
      { name: 'run-id', value: 'id', help: 'Run id of the canonical events (default: a random UUID).' },
      { name: 'message-id', value: 'id', help: "Assistant message id (default: the provider's message id)." },
      {
        name: 'continues',
        help: 'The run continues the earlier message --message-id names (after an approval): answers before its first step are for that message.',
      },
      {
        name: 'think-tags',
        value: 'tag',
        optionalValue: 'think',
        help: 'Split <think>…</think> (or <tag>…</tag>) sections out of the text of any framework as reasoning.',
      },
      { name: 'progress', help: 'Show a progress bar on stderr (default: for a file input when stderr is a terminal).' },
      { name: 'no-progress', help: 'Never show the progress bar.' },
      HELP_FLAG,
    ],
    maxPositionals: 1,
    load: () => import('./convert.ts'),
  },
  validate: {
    name: 'validate',
    summary: 'Check a stream against a protocol.',
    synopsis: 'validate --protocol <protocol> [file|-]',
    details: [
      'canonical: JSON lines (or SSE) of canonical events, checked against the canonical schema and the',
      'run rules. ai-sdk: an AI SDK UI message stream SSE body, checked against the chunk schema and the',
      'assembly rules of the official client; data: [DONE] only at the end. ag-ui: AG-UI events, checked with',
      "@ag-ui/core's schemas and @ag-ui/client's verifier (optional peer dependencies). A file is a whole",
      'stream: one cut short (no finish / [DONE], no run-finish / RUN_FINISHED, parts left open) is invalid.',
      'Prints "ok (N events)" and exits 0, or one line per issue "event <index> (<where>) <path>: <message>"',
      '(index 0-based; where = input line or SSE event number) and exits 1.',
    ].join('\n'),
    flags: [
      {
        name: 'protocol',
        short: 'p',
        value: 'protocol',
        choices: ['ai-sdk', 'canonical', 'ws', 'dsagent', 'ag-ui'],
        required: true,
        help: 'Protocol to check (required).',
      },
      HELP_FLAG,
    ],
    maxPositionals: 1,
    load: () => import('./validate.ts'),
  },
  replay: {
    name: 'replay',
    summary: 'Replay a recorded capture as a live stream.',
    synopsis: 'replay <capture|-> [--from <framework>] [--to <protocol>] [--speed <n> | --realtime] [options]',
    details: [
      "Plays a recorded stream (any framework's SSE body or JSON lines, or a stored canonical run) on",
      'stdout as if it were live, converted to a UI protocol. Values with timestamps (canonical ts, AG-UI',
      'timestamp) keep their real gaps (at most 5 s); others are spaced by --interval. --speed divides every',
      'pause (2 = twice as fast; 0 = as fast as possible); --realtime is --speed 1, the default.',
      'Exit 0; 1 on I/O errors; 2 on usage errors; 130 when interrupted.',
    ].join('\n'),
    flags: [
      CAPTURE_FROM_FLAG,
      TO_FLAG,
      { name: 'speed', short: 's', value: 'n', default: '1', help: 'Pace multiplier; 0 = no pauses.' },
      { name: 'realtime', help: 'Original pace (the same as --speed 1).' },
      { name: 'interval', value: 'ms', default: '20', help: 'Pause between values without timestamps.' },
      outputFormatFlag('jsonl for canonical, ws, dsagent; else sse'),
      OUTPUT_FLAG,
      NAMESPACE_FLAG,
      { name: 'run-id', value: 'id', help: 'Run id of the replayed run (default: a random UUID).' },
      HELP_FLAG,
    ],
    maxPositionals: 1,
    load: () => import('./replay.ts'),
  },
  agents: {
    name: 'agents',
    summary: 'List the configured agents and whether they can run.',
    synopsis: 'agents [--config <file>] [--json]',
    details: [
      'Reads the configuration (--config, else SWITCHBOARD_CONFIG, else switchboard.config.json in the current',
      "directory when there is one) and lists every agent: the config file's and the built-in ones (demo, replay,",
      'anthropic, openai, gemini, langchain), with its framework, what it runs, and whether it is enabled or why',
      'not (an SDK agent needs its API key in the environment). Exit 0; 1 when the configuration is invalid',
      '(each problem is printed with its key or environment variable).',
    ].join('\n'),
    flags: [CONFIG_FLAG, { name: 'json', help: 'Print JSON (no secrets: setEnv values and API keys are never shown).' }, HELP_FLAG],
    maxPositionals: 0,
    load: () => import('./agents.ts'),
  },
  serve: {
    name: 'serve',
    summary: 'Run the gateway (HTTP, AG-UI, WebSocket), as npm start does.',
    synopsis: 'serve [--port <n>] [--host <addr>] [--config <file>]',
    details: [
      'Reads the configuration (--config, else SWITCHBOARD_CONFIG, else switchboard.config.json when present) and the',
      'environment (PORT, HOST, SWITCHBOARD_DATA_DIR, DATABASE_URL, REDIS_URL, SWITCHBOARD_TOKENS, …; see docs/gateway.md),',
      'opens the store, recovers runs an earlier process left unfinished and serves until SIGINT / SIGTERM.',
      'Exit 0 after a clean shutdown; 1 when it cannot start (configuration, store, port); 2 on usage errors.',
    ].join('\n'),
    flags: [
      { name: 'port', short: 'p', value: 'n', help: 'Port to listen on (0 = any free one); wins over PORT and the config.' },
      { name: 'host', value: 'addr', help: 'Interface to listen on; wins over HOST and the config.' },
      CONFIG_FLAG,
      HELP_FLAG,
    ],
    maxPositionals: 0,
    load: () => import('./serve.ts'),
  },
  chats: {
    name: 'chats',
    summary: 'List stored chats, or export one in a history protocol.',
    synopsis: 'chats list [--format table|json] [--limit <n>] | chats export <id> [--protocol <p>] [-o <file>]',
    details: [
      'Reads the store the configuration names (SQLite in SWITCHBOARD_DATA_DIR, PostgreSQL with DATABASE_URL, or',
      'SWITCHBOARD_STORE_URL) directly: no server needed. list: id, last update, runs, last run status, owner (token',
      'name), title; most recently updated first. export: the conversation as ai-sdk (UIMessage[]), ag-ui',
      '(MESSAGES_SNAPSHOT), timeline or canonical JSON. Exit 0; 1 when the store cannot be opened or there is no such',
      'chat; 2 on usage errors.',
    ].join('\n'),
    flags: [
      {
        name: 'protocol',
        value: 'protocol',
        choices: ['ai-sdk', 'ag-ui', 'timeline', 'dsagent', 'canonical'],
        default: 'ai-sdk',
        help: 'History format of export.',
      },
      { name: 'output', short: 'o', value: 'file', help: 'Write the export to this file instead of stdout.' },
      { name: 'limit', value: 'n', default: '50', help: 'Chats listed.' },
      { name: 'format', value: 'format', choices: ['table', 'json'], default: 'table', help: 'Output of list.' },
      CONFIG_FLAG,
      HELP_FLAG,
    ],
    maxPositionals: 2,
    load: () => import('./chats.ts'),
  },
  inspect: {
    name: 'inspect',
    summary: 'Show a capture or a stored run as a readable timeline.',
    synopsis: 'inspect <capture|-|runId> [--from <framework>] [--color <when>] [--width <n>]',
    details: [
      "A capture file (any framework's SSE body or JSON lines, recognised by itself or named with --from) or, when",
      'no such file exists, a run id of the configured store. One line per canonical event: time since the start,',
      'seq, event type, the block it belongs to (text, reasoning:thinking, reasoning:processing, tool:<name>, step,',
      'run…) and its text or payload, cut to the terminal width; then a summary. Exit 0; 1 when there is no such file',
      'or stored run; 2 on usage errors.',
    ].join('\n'),
    flags: [
      CAPTURE_FROM_FLAG,
      {
        name: 'color',
        value: 'when',
        choices: ['auto', 'always', 'never'],
        default: 'auto',
        help: 'Color the output (auto: on a terminal, unless NO_COLOR).',
      },
      { name: 'width', value: 'n', help: 'Line width (default: the terminal width, else 120).' },
      OUTPUT_FLAG,
      { name: 'config', short: 'c', value: 'file', help: 'Config file (for a stored run).' },
      HELP_FLAG,
    ],
    maxPositionals: 1,
    load: () => import('./inspect.ts'),
  },
};

function flagLine(f: FlagSpec): string {
  const value = f.value ? (f.optionalValue ? `[=<${f.value}>]` : ` <${f.value}>`) : '';
  const names = `${f.short ? `-${f.short}, ` : '    '}--${f.name}${value}`;
  const extra = [f.choices ? `one of: ${f.choices.join(', ')}` : '', f.default ? `default: ${f.default}` : ''].filter(Boolean).join('; ');
  return `  ${names.padEnd(30)} ${extra ? `${f.help.replace(/\.$/, '')} (${extra}).` : f.help}`;
}

/** The top-level usage text. */
export function mainUsage(): string {
  const lines = [
    'Usage: switchboard <command> [options]',
    '',
    "Any agent framework's stream in, one canonical event model, any UI protocol out.",
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  ${c.name.padEnd(10)} ${c.summary}`),
    `  ${'help'.padEnd(10)} Show the help of a command.`,
    '',
    'Options:',
    '  -h, --help      Show this help (also after a command).',
    '  --version       Print the version.',
    '',
    'Run "switchboard <command> --help" for the options of a command.',
  ];
  return `${lines.join('\n')}\n`;
}

/** The usage text of one command. */
export function commandUsage(spec: CommandSpec): string {
  return `Usage: switchboard ${spec.synopsis}\n\n${spec.summary}\n\n${spec.details}\n\nOptions:\n${spec.flags.map(flagLine).join('\n')}\n`;
}
