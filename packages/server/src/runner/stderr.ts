/**
 * An agent's stderr, as the process runner reads it: split into lines, each one logged, the last few
 * kept for a crash report. Split out of `process.ts` so `ProcessRun` stays a readable size (issue
 * 12's 400-line rule).
 */

import type { AgentExit } from './types.ts';

/** How many stderr lines a crash report quotes, and how long each may be. */
const STDERR_TAIL_LINES = 8;
const STDERR_LINE_CHARS = 400;
/** Longest stderr line logged as it is; longer ones are cut. */
const STDERR_MAX_LINE = 8192;

/** Stderr text in, lines out (to `log`); `tail` holds the last few for a crash report. */
export class StderrLines {
  /** The last lines, each cut to a quotable length. */
  readonly tail: string[] = [];
  private carry = '';
  private readonly log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.log = log;
  }

  /** More stderr text (any chunking). */
  push(text: string): void {
    let carry = this.carry + text;
    let nl = carry.indexOf('\n');
    while (nl !== -1) {
      this.line(carry.slice(0, nl));
      carry = carry.slice(nl + 1);
      nl = carry.indexOf('\n');
    }
    if (carry.length > STDERR_MAX_LINE) {
      this.line(carry);
      carry = '';
    }
    this.carry = carry;
  }

  /** Stderr closed: a last line without its newline counts too. */
  end(): void {
    if (this.carry) this.line(this.carry);
    this.carry = '';
  }

  private line(raw: string): void {
    const line = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).slice(0, STDERR_MAX_LINE);
    if (line.trim() === '') return;
    this.log(line);
    this.tail.push(line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS)}…` : line);
    if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
  }
}

/** How an agent ended, in words for the run's error, with the end of its stderr when the config exposes it. */
export function describeExit(
  agent: string,
  exit: AgentExit | undefined,
  tail: readonly string[],
  exposeStderr: boolean | undefined,
): string {
  const how = exit?.signal ? `agent "${agent}" was killed by ${exit.signal}` : `agent "${agent}" exited with code ${exit?.code}`;
  if (!tail.length) return how;
  return exposeStderr ? `${how}\n${tail.join('\n')}` : `${how} (its stderr is in the server log)`;
}
