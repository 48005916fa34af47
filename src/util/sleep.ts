import { setTimeout } from 'node:timers/promises';

/** A timer that rejects at once when the signal aborts; a module of its own so that tests record the waits instead of sleeping them. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => setTimeout(ms, undefined, { signal });
