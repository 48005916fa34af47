import { Worker } from 'node:worker_threads';

/** Compares a password with a bcrypt hash (tests substitute their own). */
export type BcryptVerifier = Pick<BcryptWorker, 'full' | 'pending' | 'compare'>;

/**
 * bcryptjs is plain JavaScript, slow by design (about 80 ms a comparison at cost 10): on the event loop, 40 parallel bad logins would
 * hold /healthz for seconds. Evaluated from source (not a file beside this one) to run the same from dist/, under tsx and ts-jest.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  // Linux schedules each thread alone: this one (tid from /proc) at the lowest priority, so the event loop runs first; elsewhere unchanged.
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, require('node:os').constants.priority.PRIORITY_LOW);
} catch {}
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', ({ id, password, hash }) => {
  let matched = false;
  try {
    matched = bcrypt.compareSync(password, hash);
  } catch {}
  parentPort.postMessage({ id, matched });
});
`;

/** At cost 10, 32 waiting comparisons are about 2.5 s: longer waits would outlast a scrape's timeout anyway. */
const DEFAULT_MAX_PENDING = 32;

/**
 * bcrypt comparisons on one worker thread (a second would take the core collections and scrapes need) at the lowest priority: the event
 * loop serving /healthz and scrapes must not wait for bad logins. Started at first use and again if it dies; never keeps the process alive.
 */
export class BcryptWorker {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (matched: boolean) => void; reject: (error: Error) => void }>();

  constructor(private readonly maxPending = DEFAULT_MAX_PENDING) {}

  /** comparisons waiting or running */
  get pending(): number {
    return this.waiting.size;
  }

  /** enough comparisons wait already: a request is shed instead of queued for seconds */
  get full(): boolean {
    return this.waiting.size >= this.maxPending;
  }

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, password, hash });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  /** The thread, started if it is not running (at the exporter's start: the first comparisons then need not wait for it). */
  start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptjs: require.resolve('bcryptjs') } });
    worker.on('message', ({ id, matched }: { id: number; matched: boolean }) => {
      this.waiting.get(id)?.resolve(matched);
      this.waiting.delete(id);
    });
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const entry of this.waiting.values()) entry.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the bcrypt worker stopped (exit code ${code})`)));
    // After the listeners: a 'message' listener refs the worker's port again, undoing an earlier unref.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
