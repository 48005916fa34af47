import { inspect } from 'node:util';

/** A credential that prints, logs, JSON-encodes and interpolates as "[REDACTED]"; only the HTTP clients call reveal(). */
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

const REDACTED = '[REDACTED]';
/** Longer error bodies are redacted as text only: no error quotes them (serverReason). */
const MAX_DECODED_BODY_CHARS = 64_000;
/** Tokens remembered: the current one and those it replaced a moment ago, which an answer in flight may still quote. */
const KEPT_TOKENS = 4;

/** Removes one target's credentials from upstream text, which may echo the request; its private (#) fields never print. */
export class Redactor {
  readonly #fixed: readonly string[];
  #tokens: string[] = [];
  #pattern: RegExp | null | undefined;

  /** `secrets`: the password and what is derived from it, e.g. the Basic header's `user:password`. */
  constructor(secrets: readonly string[]) {
    this.#fixed = secrets.flatMap(spellings);
  }

  /** Remembers a token the API issued (the oldest beyond KEPT_TOKENS is forgotten). */
  addToken(token: string): void {
    if (!token || this.#tokens.includes(token)) return;
    this.#tokens = [...this.#tokens, token].slice(-KEPT_TOKENS);
    this.#pattern = undefined;
  }

  redact(text: string): string {
    if (this.#pattern === undefined) this.#pattern = patternOf([...this.#fixed, ...this.#tokens.flatMap(spellings)]);
    return this.#pattern ? text.replace(this.#pattern, REDACTED) : text;
  }

  /** An error body: JSON is re-encoded with its strings redacted decoded, so no encoder's escapes (\u0026, \/, \u00e4) hide a secret. */
  redactBody(text: string): string {
    const redactString = (_key: string, value: unknown): unknown => (typeof value === 'string' ? this.redact(value) : value);
    try {
      if (text.length <= MAX_DECODED_BODY_CHARS) return JSON.stringify(JSON.parse(text), redactString);
    } catch {
      // not JSON: redacted as text
    }
    return this.redact(text);
  }
}

/** A credential as an echo may write it. */
function spellings(secret: string): string[] {
  if (!secret) return [];
  const json = JSON.stringify(secret).slice(1, -1);
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  const base64url = Buffer.from(secret, 'utf8').toString('base64url');
  // URL-encoded as encodeURIComponent does, as a form (URLSearchParams, Java's URLEncoder: `+` for a space, `!'()~` escaped) and
  // strictly (RFC 3986: `!'()*` escaped too), each also with its escapes in lower case.
  const component = encodeURIComponent(secret);
  const form = new URLSearchParams([['', secret]]).toString().slice(1);
  const strict = component.replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  const lowerEscapes = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  const urlEncoded = [component, form, strict].flatMap((text) => [text, lowerEscapes(text)]);
  return [secret, json, JSON.stringify(json).slice(1, -1), ...urlEncoded, base64, base64.replace(/=+$/, ''), base64url];
}

/** One alternation, longest first: a spelling that contains another is replaced whole. */
function patternOf(texts: readonly string[]): RegExp | null {
  const unique = [...new Set(texts)].filter(Boolean).sort((a, b) => b.length - a.length);
  return unique.length > 0 ? new RegExp(unique.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g') : null;
}

/** The URL without a user name and password, for a log line (an OTLP endpoint may carry them). */
export function withoutUserInfo(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}
