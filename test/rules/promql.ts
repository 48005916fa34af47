/**
 * Just enough of a PromQL lexer to list the metric names and label names an
 * expression uses, so that tests can hold rules and dashboards to the metric
 * contract. Syntax errors are promtool's job, not this module's.
 */

export interface MetricSelector {
  readonly name: string;
  /** Label names of the selector's matchers (`{tier!="total"}` gives tier). */
  readonly matcherLabels: readonly string[];
}

export interface PromqlUsage {
  readonly selectors: readonly MetricSelector[];
  /** Label names of by / without / on / ignoring / group_left / group_right lists. */
  readonly groupingLabels: readonly string[];
}

type Token =
  | { readonly kind: 'ident'; readonly text: string }
  | { readonly kind: 'matchers'; readonly labels: readonly string[]; readonly metricName?: string }
  | { readonly kind: 'other'; readonly text: string };

const KEYWORDS = new Set([
  'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right',
  'bool', 'offset', 'atan2', 'inf', 'nan',
  // aggregation operators: `sum by (x) (...)` is followed by `by`, not `(`
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values',
  'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
]);
const GROUPING_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const IDENT_START = /[A-Za-z_:]/;
const IDENT_PART = /[A-Za-z0-9_:]/;

/** Index just past the string literal that starts at `start`. */
function skipString(expr: string, start: number): number {
  const quote = expr[start];
  let index = start + 1;
  while (index < expr.length && expr[index] !== quote) {
    index += quote !== '`' && expr[index] === '\\' ? 2 : 1;
  }
  return index + 1;
}

/** Parses `{a="x", b=~"y"}` starting at the opening brace. */
function readMatchers(expr: string, start: number): { end: number; token: Token } {
  const labels: string[] = [];
  let metricName: string | undefined;
  let index = start + 1;
  while (index < expr.length && expr[index] !== '}') {
    const char = expr[index] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      index = skipString(expr, index);
    } else if (IDENT_START.test(char)) {
      let end = index;
      while (end < expr.length && IDENT_PART.test(expr[end] ?? '')) end += 1;
      const label = expr.slice(index, end);
      const matcher = /^\s*(=~|!~|!=|=)\s*/.exec(expr.slice(end));
      const valueAt = end + (matcher?.[0].length ?? 0);
      const quoted = /["'`]/.test(expr[valueAt] ?? '');
      const valueEnd = quoted ? skipString(expr, valueAt) : end;
      if (label === '__name__' && matcher?.[1] === '=') metricName = expr.slice(valueAt + 1, valueEnd - 1);
      else labels.push(label);
      index = valueEnd;
    } else {
      index += 1;
    }
  }
  return { end: index + 1, token: { kind: 'matchers', labels, metricName } };
}

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expr.length) {
    const char = expr[index] ?? '';
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === '#') {
      while (index < expr.length && expr[index] !== '\n') index += 1;
    } else if (char === '"' || char === "'" || char === '`') {
      index = skipString(expr, index);
      tokens.push({ kind: 'other', text: 'string' });
    } else if (char === '{') {
      const { end, token } = readMatchers(expr, index);
      tokens.push(token);
      index = end;
    } else if (char === '[') {
      // range or subquery: durations only
      while (index < expr.length && expr[index] !== ']') index += 1;
      index += 1;
      tokens.push({ kind: 'other', text: 'range' });
    } else if (/[0-9.]/.test(char)) {
      // numbers and durations: 5m, 1e12, 1e-3, 0x1f, 1h30m
      const match = /^(0x[0-9a-fA-F]+|[0-9.]+(?:[eE][+-]?[0-9]+)?(?:[a-z]+[0-9]*)*)/.exec(expr.slice(index));
      index += match?.[0].length || 1;
      tokens.push({ kind: 'other', text: 'number' });
    } else if (IDENT_START.test(char)) {
      let end = index;
      while (end < expr.length && IDENT_PART.test(expr[end] ?? '')) end += 1;
      tokens.push({ kind: 'ident', text: expr.slice(index, end) });
      index = end;
    } else {
      tokens.push({ kind: 'other', text: char });
      index += 1;
    }
  }
  return tokens;
}

export function analyzePromql(expr: string): PromqlUsage {
  const tokens = tokenize(expr);
  const selectors: MetricSelector[] = [];
  const groupingLabels: string[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    const next = tokens[index + 1];
    if (!token) continue;
    if (token.kind === 'matchers') {
      if (token.metricName) selectors.push({ name: token.metricName, matcherLabels: token.labels });
      continue;
    }
    if (token.kind !== 'ident') continue;
    if (GROUPING_KEYWORDS.has(token.text) && next?.kind === 'other' && next.text === '(') {
      index += 2;
      for (; index < tokens.length; index += 1) {
        const inner = tokens[index];
        if (!inner || (inner.kind === 'other' && inner.text === ')')) break;
        if (inner.kind === 'ident') groupingLabels.push(inner.text);
      }
      continue;
    }
    if (KEYWORDS.has(token.text)) continue;
    if (next?.kind === 'other' && next.text === '(') continue; // a function call
    if (next?.kind === 'matchers') {
      selectors.push({ name: token.text, matcherLabels: next.labels });
      index += 1;
    } else {
      selectors.push({ name: token.text, matcherLabels: [] });
    }
  }
  return { selectors, groupingLabels };
}
