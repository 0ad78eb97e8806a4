/**
 * `npm run fuzz -- [--runs N] [--seed S] [--workers W] [--frameworks a,b] [--out dir] [--repro i]`
 * Prints the counts per decoder and kind; exits 1 when anything was found.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { checkInput } from './check.ts';
import { caseAt, FUZZ_FRAMEWORKS, formatReport, runFuzz } from './run.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '42' },
    workers: { type: 'string', default: String(Math.max(1, availableParallelism())) },
    frameworks: { type: 'string' },
    out: { type: 'string' },
    repro: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const seed = Number(values.seed);
const frameworks = values.frameworks ? values.frameworks.split(',') : FUZZ_FRAMEWORKS;
if (values.repro !== undefined) {
  const c = caseAt(seed, Number(values.repro));
  console.log(c.name);
  for (const f of await checkInput(c, seed + Number(values.repro), frameworks)) console.log(`${f.framework} ${f.kind}: ${f.note}`);
} else {
  const runs = Number(values.runs);
  const started = performance.now();
  let shown = 0;
  // A line on stderr about once a minute, so that a long run shows it is alive and how far it got.
  const onProgress = (cases: number, findings: number) => {
    const now = performance.now();
    if (now - shown < 60_000 && cases < runs) return;
    shown = now;
    const min = (now - started) / 60_000;
    process.stderr.write(`fuzz: ${cases} / ${runs} inputs, ${findings} findings, ${min.toFixed(1)} min\n`);
  };
  const result = await runFuzz({ runs, seed, workers: Number(values.workers), frameworks, out: values.out, onProgress });
  process.stdout.write(formatReport(result, frameworks));
  if (values.verbose || result.examples.length) {
    console.log('\nfirst example per decoder and kind (reproduce with --repro <index> --seed <seed>):');
    for (const e of result.examples) console.log(`  #${e.index} ${e.framework} ${e.kind}: ${e.note}\n      ${e.case}`);
  }
  process.exitCode = result.examples.length ? 1 : 0;
}
