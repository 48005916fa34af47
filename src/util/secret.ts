import { inspect } from 'node:util';

/**
 * A credential that cannot leak by accident: printing, logging, JSON-encoding
 * or string-interpolating it gives "[REDACTED]". Only reveal() gives the value,
 * and only the HTTP clients call it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[REDACTED]';
  }

  toJSON(): string {
    return '[REDACTED]';
  }

  [inspect.custom](): string {
    return '[REDACTED]';
  }
}
