/**
 * `switchboard agents`: the configured agents (the config file's and the built-in ones), with their
 * framework, what they run, and whether they can run (and why not).
 */
import { relative } from 'node:path';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { AgentDefinition } from '../config/types.ts';

function what(agent: AgentDefinition): string {
  if (agent.kind === 'process') return [agent.command, ...agent.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
  const s = agent.settings;
  if ('provider' in s) return `(built-in) ${s.provider} ${s.model} at ${s.baseUrl}`;
  if (agent.builtin === 'replay') return `(built-in) captures in ${(s as { dir: string }).dir}`;
  return '(built-in)';
}

/** What `--json` prints for one agent: no secrets (setEnv values are left out). */
function summary(agent: AgentDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = { name: agent.name, kind: agent.kind, framework: agent.framework, enabled: agent.enabled };
  if (agent.disabledReason) out.disabledReason = agent.disabledReason;
  if (agent.description) out.description = agent.description;
  if (agent.kind === 'process') {
    Object.assign(out, { command: agent.command, args: agent.args, cwd: agent.cwd, env: agent.env, setEnv: Object.keys(agent.setEnv) });
  } else {
    out.builtin = agent.builtin;
    const { apiKeyEnv: _keys, ...settings } = agent.settings as unknown as Record<string, unknown>;
    out.settings = settings;
  }
  out.limits = agent.limits;
  return out;
}

function pad(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}

/** Runs `agents`. Exit 0, or 1 when the configuration is invalid. */
export async function run(flags: Record<string, string | undefined>, _positionals: string[]): Promise<number> {
  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig(flags.config !== undefined ? { path: flags.config } : {});
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`switchboard agents: invalid configuration\n${err.message}\n`);
    return 1;
  }
  if (flags.json !== undefined) {
    process.stdout.write(`${JSON.stringify({ config: config.source ?? null, agents: config.agents.map(summary) }, null, 2)}\n`);
    return 0;
  }
  const from = config.source ? `config: ${relative(process.cwd(), config.source) || config.source}` : 'config: none (built-in agents only)';
  const rows = [['NAME', 'FRAMEWORK', 'RUNS', 'STATUS']];
  for (const a of config.agents) rows.push([a.name, a.framework, what(a), a.enabled ? 'enabled' : `disabled: ${a.disabledReason}`]);
  process.stdout.write(`${from}\n\n${pad(rows)}\n`);
  return 0;
}
