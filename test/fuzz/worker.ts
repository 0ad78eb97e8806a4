/** A fuzz worker: runs its share of the cases and posts back the findings. */
import { parentPort, workerData } from 'node:worker_threads';
import { type FuzzJob, runJob } from './run.ts';

const job = workerData as FuzzJob;
const result = await runJob(job);
parentPort?.postMessage(result);
