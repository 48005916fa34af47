import { readFileSync } from 'node:fs';
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

/** A secret file (a Kubernetes or Docker secret) without its final newline, or why it gives none. */
export function readSecretFile(file: string): { secret: Secret } | { problem: string } {
  try {
    const content = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    return content ? { secret: new Secret(content) } : { problem: `file ${file} is empty` };
  } catch (error) {
    return { problem: `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}
