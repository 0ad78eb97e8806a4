/**
 * `npm run matrix`: prints the conformance matrix (inputs × outputs, pass/fail, frame counts) and
 * exits non-zero if any cell fails. `--failures` prints only the failing rows.
 */
import { matrixInputs } from './inputs.ts';
import { type Row, runRow } from './matrix.ts';

const onlyFailures = process.argv.includes('--failures');
const rows: Row[] = [];
for (const input of matrixInputs()) rows.push(await runRow(input));

const columns = [...new Set(rows.flatMap((r) => Object.keys(r.cells)))];
const width = Math.min(72, Math.max(...rows.map((r) => r.input.length)));
const cut = (s: string, n: number) => (s.length > n ? `…${s.slice(s.length - n + 1)}` : s.padEnd(n));
console.log(`${'input'.padEnd(width)}  ${'decoder'.padEnd(18)}  ${columns.map((c) => c.padEnd(14)).join('')}`);
let failed = 0;
const notes: string[] = [];
for (const r of rows) {
  const bad = Object.values(r.cells).some((c) => !c.ok);
  if (bad) failed++;
  if (onlyFailures && !bad) continue;
  const cells = columns.map((c) => {
    const cell = r.cells[c];
    if (!cell) return '-'.padEnd(14);
    return (cell.ok ? `ok ${cell.frames || ''}` : 'FAIL').padEnd(14);
  });
  console.log(`${cut(r.input, width)}  ${(r.detected ?? '(none)').padEnd(18)}  ${cells.join('')}`);
  for (const [c, cell] of Object.entries(r.cells)) if (!cell.ok) notes.push(`${r.input} [${c}]: ${cell.note}`);
}
console.log(`\n${rows.length} inputs × ${columns.length} checks: ${rows.length - failed} rows pass, ${failed} fail`);
for (const n of notes) console.log(`  ${n}`);
process.exitCode = failed ? 1 : 0;
