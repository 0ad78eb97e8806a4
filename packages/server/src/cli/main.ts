/**
 * Entry point of the `switchboard` CLI (started by `bin/switchboard.js`): parses the command line,
 * answers `--help` / `--version` and usage errors itself, and loads only the command it runs.
 */
import { readFileSync } from 'node:fs';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { COMMANDS, type CommandSpec, commandUsage, mainUsage } from './commands.ts';

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const isHelp = (arg: string) => arg === '-h' || arg === '--help';

function usageError(message: string, usage: string, command?: string): number {
  process.stderr.write(`switchboard${command ? ` ${command}` : ''}: ${message}\n\n${usage}`);
  return EXIT.usage;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Parses a command's flags; returns the exit code of a usage error instead when they are wrong. */
function parseCommand(spec: CommandSpec, args: string[]): { flags: Record<string, string | undefined>; positionals: string[] } | number {
  const options: ParseArgsOptionsConfig = {};
  for (const f of spec.flags) options[f.name] = { type: f.value ? 'string' : 'boolean', ...(f.short ? { short: f.short } : {}) };
  // A flag whose value is optional, given bare, takes its default value (`--think-tags` = `--think-tags=think`).
  const bare = new Map(spec.flags.filter((f) => f.optionalValue).map((f) => [`--${f.name}`, `--${f.name}=${f.optionalValue}`]));
  const line = bare.size ? args.map((a) => bare.get(a) ?? a) : args;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: line, options, allowPositionals: true, strict: true });
  } catch (err) {
    // node's messages go on with advice about `--`; the first sentence is the useful part.
    return usageError((err as Error).message.split(/(?<=\.)\s|\n/)[0], commandUsage(spec), spec.name);
  }
  const flags: Record<string, string | undefined> = {};
  for (const f of spec.flags) {
    const value = parsed.values[f.name];
    // A boolean flag given on the line is "true"; one not given stays undefined.
    if (value === true) flags[f.name] = 'true';
    if (typeof value !== 'string') continue;
    if (f.choices && !f.choices.includes(value)) {
      return usageError(`invalid --${f.name} "${value}"; expected one of: ${f.choices.join(', ')}`, commandUsage(spec), spec.name);
    }
    flags[f.name] = value;
  }
  const missing = spec.flags.find((f) => f.required && flags[f.name] === undefined);
  if (missing) return usageError(`missing --${missing.name} <${missing.value}>`, commandUsage(spec), spec.name);
  if (parsed.positionals.length > spec.maxPositionals) {
    return usageError(`unexpected argument "${parsed.positionals[spec.maxPositionals]}"`, commandUsage(spec), spec.name);
  }
  return { flags, positionals: parsed.positionals };
}

/**
 * Runs the CLI with the arguments after the program name; resolves to the exit code
 * (0 ok, 1 failure, 2 usage error).
 */
export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) return usageError('missing command', mainUsage());
  if (isHelp(first)) {
    process.stdout.write(mainUsage());
    return EXIT.ok;
  }
  if (first === '--version') {
    process.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (first === 'help') {
    const spec = rest[0] === undefined ? undefined : COMMANDS[rest[0]];
    if (rest[0] !== undefined && !spec) return usageError(`unknown command "${rest[0]}"`, mainUsage());
    process.stdout.write(spec ? commandUsage(spec) : mainUsage());
    return EXIT.ok;
  }
  const spec = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (!spec) return usageError(first.startsWith('-') ? `unknown option "${first}"` : `unknown command "${first}"`, mainUsage());

  // --help wins over everything else on the line (up to a `--`).
  const end = rest.indexOf('--');
  if ((end === -1 ? rest : rest.slice(0, end)).some(isHelp)) {
    process.stdout.write(commandUsage(spec));
    return EXIT.ok;
  }
  const parsed = parseCommand(spec, rest);
  if (typeof parsed === 'number') return parsed;
  const command = await spec.load();
  return await command.run(parsed.flags, parsed.positionals);
}
