/** A fuzz worker: runs its share of the cases, posts progress now and then and the findings at the end. */
import { parentPort, workerData } from 'node:worker_threads';
import { type FuzzJob, runJob, type WorkerMessage } from './run.ts';

const post = (m: WorkerMessage) => parentPort?.postMessage(m);
const job = workerData as FuzzJob;
const result = await runJob(job, (cases, findings) => post({ type: 'progress', cases, findings }));
post({ type: 'result', result });
