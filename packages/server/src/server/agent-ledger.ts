/**
 * The ledger of agent processes: one small file per running agent process in
 * `<dataDir>/agent-processes/<pid>.json` (its pid and start time, and its gateway's), written when
 * it starts and removed when it exits. A gateway killed with SIGKILL cannot end its agents (they
 * run in process groups of their own); the next gateway on the same data directory reads the
 * ledger at boot and kills each process group whose gateway is gone and which is still the same
 * process (same start time, read from `/proc/<pid>/stat`) — never a stranger that reused the pid,
 * never the agents of another gateway alive on the same directory. Where `/proc` does not exist
 * start times cannot be checked: nothing is killed, stale entries are dropped.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A process's start time (clock ticks since boot, `/proc/<pid>/stat` field 22), undefined when unknown or gone. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its `)`.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19];
  } catch {
    return undefined;
  }
}

/** Records agent processes of this gateway and reaps those of a previous one. */
export class AgentLedger {
  readonly dir: string;

  private readonly self = processStartTime(process.pid);

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'agent-processes');
  }

  /** Records a started process (errors are ignored: the ledger is a best effort, never a reason to fail a run). */
  record(pid: number): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const entry = { pid, startTime: processStartTime(pid) ?? null, gateway: process.pid, gatewayStartTime: this.self ?? null };
      writeFileSync(join(this.dir, `${pid}.json`), JSON.stringify(entry), { mode: 0o600 });
    } catch {
      // Best effort.
    }
  }

  /** Forgets a process that exited. */
  forget(pid: number): void {
    rmSync(join(this.dir, `${pid}.json`), { force: true });
  }

  /** The hook for the runner's `onProcess`. */
  readonly onProcess = (event: 'spawn' | 'exit', pid: number): void => {
    if (event === 'spawn') this.record(pid);
    else this.forget(pid);
  };

  /**
   * Kills (SIGKILL, the whole process group) every recorded process that is still the same
   * process, and empties the ledger. Call it at boot, before any run starts. Returns the pids killed.
   */
  reap(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const killed: number[] = [];
    for (const name of names) {
      const file = join(this.dir, name);
      try {
        const entry = JSON.parse(readFileSync(file, 'utf8')) as {
          pid?: unknown;
          startTime?: unknown;
          gateway?: unknown;
          gatewayStartTime?: unknown;
        };
        // Its gateway is alive (another instance on this directory): its agents are its business.
        if (
          typeof entry.gateway === 'number' &&
          typeof entry.gatewayStartTime === 'string' &&
          processStartTime(entry.gateway) === entry.gatewayStartTime
        )
          continue;
        const pid = entry.pid;
        if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 1 && typeof entry.startTime === 'string') {
          if (processStartTime(pid) === entry.startTime) {
            try {
              process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
              killed.push(pid);
            } catch {
              // Gone meanwhile.
            }
          }
        }
      } catch {
        // Unreadable: drop it.
      }
      rmSync(file, { force: true });
    }
    return killed;
  }
}
