/**
 * The typed channel between the two threads: messages one way, and calls
 * (a message with an id) answered by one reply each.
 */
import type { MessagePort, Transferable, Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker } from './protocol';

type Port = Pick<MessagePort | Worker, 'postMessage'>;

/** Distributive Omit: each member of a union without `id`. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** What a call gets when the collection thread ends before it answers. */
export class CollectionStopped extends Error {
  constructor() {
    super('the collection thread stopped');
    this.name = 'CollectionStopped';
  }
}

/** The serving thread's end: sends ToWorker, matches replies to calls. */
export class HostLink {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(private readonly port: Port) {}

  send(message: Extract<ToWorker, { type: 'schedule' | 'advanceClock' }>): void {
    this.port.postMessage(message);
  }

  call<T>(message: WithoutId<Exclude<ToWorker, { type: 'schedule' | 'advanceClock' }>>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.port.postMessage({ ...message, id });
    });
  }

  /** Settles the call a reply answers. */
  replied(reply: Extract<FromWorker, { type: 'reply' }>): void {
    const call = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if (reply.error !== undefined) call?.reject(new Error(reply.error));
    else call?.resolve(reply.value);
  }

  /** The other end is gone: no reply will come. */
  failAll(error: Error): void {
    for (const call of this.waiting.values()) call.reject(error);
    this.waiting.clear();
  }
}

/** The collection thread's end. */
export class WorkerLink {
  constructor(private readonly port: Port) {}

  send(message: FromWorker, transfer: readonly Transferable[] = []): void {
    this.port.postMessage(message, transfer);
  }

  /** Answers call `id` with what `work` gives, or with its error's message. */
  answer(id: number, work: () => Promise<Extract<FromWorker, { type: 'reply' }>['value']>): void {
    work().then(
      (value) => this.send({ type: 'reply', id, ...(value === undefined ? {} : { value }) }),
      (error: unknown) => this.send({ type: 'reply', id, error: error instanceof Error ? error.message : String(error) }),
    );
  }
}
