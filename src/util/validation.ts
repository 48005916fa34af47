/** Checks input against zod schemas. Clients quote few problems (`summarize`): an answer may be huge, and errors go to logs and traces. */
import type { z } from 'zod';

export interface IssueFormat {
  /** written before every path, e.g. "content[3]" for one item of a page */
  at?: string;
  /** the path of an issue about the whole input (empty path and no `at`) */
  whole?: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[]; kind: ProblemKind };

/** What the first problem is: a field absent, a value of the wrong type, or a value of the right type the schema refuses. */
export type ProblemKind = 'missing_field' | 'wrong_type' | 'invalid_value';

/** Longest problem line: enough to name the field and say what is wrong, never a quoted body. */
const MAX_LINE_CHARS = 200;

export function check<S extends z.ZodType>(schema: S, input: unknown, format: IssueFormat = {}): Checked<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  // Again with reportInput, for the value a wrong type's line names: only on failure, as it makes zod 5-9 times slower per item.
  const { issues } = (schema.safeParse(input, { reportInput: true }).error ?? result.error) as z.ZodError;
  return { ok: false, problems: issues.map((issue) => issueLine(issue, format)), kind: problemKind(issues[0]) };
}

function problemKind(issue: z.core.$ZodIssue | undefined): ProblemKind {
  if (issue?.code !== 'invalid_type') return 'invalid_value';
  return issue.input === undefined ? 'missing_field' : 'wrong_type';
}

/** "targets[0].url" from a path; `at` is written first. */
export function formatPath(path: ReadonlyArray<PropertyKey>, at = ''): string {
  let out = at;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** At most `max` problems in one bounded line, saying how many more there are. */
export function summarize(problems: readonly string[], max: number): string {
  const more = problems.length - max;
  const shown = problems.slice(0, max).map((problem) => oneLine(problem, MAX_LINE_CHARS));
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}

/** One issue as a line; a wrong type names the value found ("got nothing (field missing)"), which zod's message does not. */
function issueLine(issue: z.core.$ZodIssue, format: IssueFormat): string {
  const where = formatPath(issue.path, format.at) || (format.whole ?? '(input)');
  const problem = issue.code === 'invalid_type' ? `expected ${issue.expected}, got ${describeValue(issue.input)}` : issue.message;
  return `${where}: ${problem}`;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
