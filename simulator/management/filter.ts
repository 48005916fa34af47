/**
 * The management service's `filter` query language:
 *
 *   expr       := orExpr
 *   orExpr     := andExpr ( "or" andExpr )*
 *   andExpr    := unary ( "and" unary )*
 *   unary      := "not" unary | "(" expr ")" | comparison
 *   comparison := FIELD OP value | FIELD ["not"] "in" "(" [ value ( "," value )* ] ")"
 *   OP         := eq | ne | gt | ge | lt | le | lk
 *   value      := "quoted string" | number | true | false | null | BAREWORD
 *
 * Strings are double-quoted with `\"` and `\\` escapes; barewords are enum
 * values (`LOCAL`), unquoted dates or anything else without spaces. Fields are
 * dotted paths (`result.status`) and must be known to the list being filtered:
 * an unknown field, like a syntax error, is a 400 for the caller.
 * Timestamps compare as instants, `lk` takes `%` wildcards (case-insensitive).
 */

export type FieldKind = 'string' | 'number' | 'boolean' | 'time';

export interface FieldSpec<T> {
  kind: FieldKind;
  /** time fields answer epoch milliseconds; missing values answer null */
  get(item: T): string | number | boolean | null | undefined;
}

export type FieldSpecs<T> = Record<string, FieldSpec<T>>;

export type Literal = string | number | boolean | null;

export type ComparisonOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'lk';

export type FilterNode =
  | { type: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { type: 'not'; operand: FilterNode }
  | { type: 'cmp'; field: string; op: ComparisonOp; value: Literal; quoted: boolean }
  | { type: 'in'; field: string; values: Literal[]; negated: boolean };

/** A filter the caller got wrong: the message is safe to send back in a 400. */
export class FilterError extends Error {}

type Token =
  | { t: 'word'; v: string; pos: number }
  | { t: 'string'; v: string; pos: number }
  | { t: 'lparen' | 'rparen' | 'comma'; pos: number };

const BAREWORD = /[^\s(),"]/;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(') {
      tokens.push({ t: 'lparen', pos: i++ });
    } else if (ch === ')') {
      tokens.push({ t: 'rparen', pos: i++ });
    } else if (ch === ',') {
      tokens.push({ t: 'comma', pos: i++ });
    } else if (ch === '"') {
      const start = i++;
      let value = '';
      for (;;) {
        if (i >= text.length) throw new FilterError(`unterminated string starting at position ${start + 1}`);
        const c = text[i] as string;
        if (c === '\\') {
          const escaped = text[i + 1];
          if (escaped === undefined) throw new FilterError(`dangling backslash at position ${i + 1}`);
          value += escaped;
          i += 2;
        } else if (c === '"') {
          i++;
          break;
        } else {
          value += c;
          i++;
        }
      }
      tokens.push({ t: 'string', v: value, pos: start });
    } else {
      const start = i;
      while (i < text.length && BAREWORD.test(text[i] as string)) i++;
      tokens.push({ t: 'word', v: text.slice(start, i), pos: start });
    }
  }
  return tokens;
}

const OPERATORS = new Set<string>(['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'lk']);
const NUMBER = /^-?\d+(\.\d+)?$/;
const FIELD_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    if (this.tokens.length === 0) throw new FilterError('empty filter');
    const node = this.orExpr();
    const rest = this.tokens[this.i];
    if (rest) throw new FilterError(`unexpected ${describe(rest)} at position ${rest.pos + 1}`);
    return node;
  }

  private orExpr(): FilterNode {
    let left = this.andExpr();
    while (this.keyword('or')) left = { type: 'or', left, right: this.andExpr() };
    return left;
  }

  private andExpr(): FilterNode {
    let left = this.unary();
    while (this.keyword('and')) left = { type: 'and', left, right: this.unary() };
    return left;
  }

  private unary(): FilterNode {
    if (this.keyword('not')) return { type: 'not', operand: this.unary() };
    const token = this.peek();
    if (token?.t === 'lparen') {
      this.i++;
      const inner = this.orExpr();
      this.expect('rparen', '")"');
      return inner;
    }
    return this.comparison();
  }

  private comparison(): FilterNode {
    const fieldToken = this.next('a field name');
    if (fieldToken.t !== 'word' || !FIELD_NAME.test(fieldToken.v) || isReserved(fieldToken.v)) {
      throw new FilterError(`expected a field name at position ${fieldToken.pos + 1}, found ${describe(fieldToken)}`);
    }
    const field = fieldToken.v;
    const negated = this.keyword('not');
    const opToken = this.next('an operator');
    const op = opToken.t === 'word' ? opToken.v.toLowerCase() : '';
    if (op === 'in') return { type: 'in', field, values: this.list(), negated };
    if (negated || !OPERATORS.has(op)) {
      throw new FilterError(`expected an operator (eq, ne, gt, ge, lt, le, lk, in) after "${field}" at position ${opToken.pos + 1}`);
    }
    const valueToken = this.next('a value');
    const { value, quoted } = literalOf(valueToken);
    return { type: 'cmp', field, op: op as ComparisonOp, value, quoted };
  }

  private list(): Literal[] {
    this.expect('lparen', '"(" after in');
    const values: Literal[] = [];
    if (this.peek()?.t === 'rparen') {
      this.i++;
      return values;
    }
    for (;;) {
      values.push(literalOf(this.next('a value')).value);
      const sep = this.next('"," or ")"');
      if (sep.t === 'rparen') return values;
      if (sep.t !== 'comma') throw new FilterError(`expected "," or ")" at position ${sep.pos + 1}`);
    }
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    if (token?.t === 'word' && token.v.toLowerCase() === word) {
      this.i++;
      return true;
    }
    return false;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private next(what: string): Token {
    const token = this.tokens[this.i++];
    if (!token) throw new FilterError(`unexpected end of filter, expected ${what}`);
    return token;
  }

  private expect(t: 'lparen' | 'rparen', what: string): void {
    const token = this.next(what);
    if (token.t !== t) throw new FilterError(`expected ${what} at position ${token.pos + 1}, found ${describe(token)}`);
  }
}

function isReserved(word: string): boolean {
  const lower = word.toLowerCase();
  return lower === 'and' || lower === 'or' || lower === 'not' || lower === 'in' || OPERATORS.has(lower);
}

function literalOf(token: Token): { value: Literal; quoted: boolean } {
  if (token.t === 'string') return { value: token.v, quoted: true };
  if (token.t !== 'word') throw new FilterError(`expected a value at position ${token.pos + 1}, found ${describe(token)}`);
  const lower = token.v.toLowerCase();
  if (lower === 'null') return { value: null, quoted: false };
  if (lower === 'true') return { value: true, quoted: false };
  if (lower === 'false') return { value: false, quoted: false };
  if (NUMBER.test(token.v)) return { value: Number(token.v), quoted: false };
  return { value: token.v, quoted: false };
}

function describe(token: Token): string {
  switch (token.t) {
    case 'word':
      return `"${token.v}"`;
    case 'string':
      return 'a quoted string';
    case 'lparen':
      return '"("';
    case 'rparen':
      return '")"';
    case 'comma':
      return '","';
  }
}

export function parseFilter(text: string): FilterNode {
  return new Parser(tokenize(text)).parse();
}

export type Predicate<T> = (item: T) => boolean;

/** Parses and type-checks `text` against the list's fields; throws FilterError for the caller's mistakes. */
export function compileFilter<T>(text: string, fields: FieldSpecs<T>): { ast: FilterNode; predicate: Predicate<T> } {
  const ast = parseFilter(text);
  return { ast, predicate: compileNode(ast, fields) };
}

export function compileNode<T>(node: FilterNode, fields: FieldSpecs<T>): Predicate<T> {
  switch (node.type) {
    case 'and': {
      const l = compileNode(node.left, fields);
      const r = compileNode(node.right, fields);
      return (item) => l(item) && r(item);
    }
    case 'or': {
      const l = compileNode(node.left, fields);
      const r = compileNode(node.right, fields);
      return (item) => l(item) || r(item);
    }
    case 'not': {
      const inner = compileNode(node.operand, fields);
      return (item) => !inner(item);
    }
    case 'in': {
      const spec = fieldSpec(fields, node.field);
      const values = new Set(node.values.map((v) => coerce(spec.kind, v, node.field)));
      const get = spec.get;
      return node.negated ? (item) => !values.has(normalise(get(item))) : (item) => values.has(normalise(get(item)));
    }
    case 'cmp':
      return compileComparison(node, fieldSpec(fields, node.field));
  }
}

function fieldSpec<T>(fields: FieldSpecs<T>, field: string): FieldSpec<T> {
  const spec = Object.prototype.hasOwnProperty.call(fields, field) ? fields[field] : undefined;
  if (!spec) throw new FilterError(`unknown field "${field}"; known fields: ${Object.keys(fields).join(', ')}`);
  return spec;
}

function normalise(v: string | number | boolean | null | undefined): Literal {
  return v === undefined ? null : v;
}

function compileComparison<T>(node: Extract<FilterNode, { type: 'cmp' }>, spec: FieldSpec<T>): Predicate<T> {
  const { op, field } = node;
  const get = spec.get;
  if (op === 'lk') {
    if (spec.kind !== 'string') throw new FilterError(`lk applies to text fields only, not to "${field}"`);
    if (node.value === null) throw new FilterError(`lk needs a pattern, not null, for "${field}"`);
    const pattern = likePattern(String(node.value));
    return (item) => {
      const v = get(item);
      return typeof v === 'string' && pattern.test(v);
    };
  }
  const literal = coerce(spec.kind, node.value, field);
  if (literal === null) {
    if (op === 'eq') return (item) => normalise(get(item)) === null;
    if (op === 'ne') return (item) => normalise(get(item)) !== null;
    throw new FilterError(`"${field} ${op} null": null only compares with eq or ne`);
  }
  switch (op) {
    case 'eq':
      return (item) => get(item) === literal;
    case 'ne':
      return (item) => get(item) !== literal;
    case 'gt':
      return (item) => {
        const v = get(item);
        return v !== null && v !== undefined && v > literal;
      };
    case 'ge':
      return (item) => {
        const v = get(item);
        return v !== null && v !== undefined && v >= literal;
      };
    case 'lt':
      return (item) => {
        const v = get(item);
        return v !== null && v !== undefined && v < literal;
      };
    case 'le':
      return (item) => {
        const v = get(item);
        return v !== null && v !== undefined && v <= literal;
      };
  }
}

/** Converts a literal to the field's value space (epoch ms for times); a mismatch is the caller's error. */
function coerce(kind: FieldKind, value: Literal, field: string): Literal {
  if (value === null) return null;
  switch (kind) {
    case 'string':
      return String(value);
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value) ? Number(value) : NaN;
      if (Number.isNaN(n)) throw new FilterError(`"${field}" takes a number, got ${JSON.stringify(value)}`);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw new FilterError(`"${field}" takes true or false, got ${JSON.stringify(value)}`);
    }
    case 'time': {
      const ms = typeof value === 'string' ? parseTimestamp(value) : undefined;
      if (ms === undefined) throw new FilterError(`"${field}" takes an ISO 8601 timestamp, got ${JSON.stringify(value)}`);
      return ms;
    }
  }
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Epoch ms of an ISO 8601 date or date-time; without a zone it is UTC (never the host's local time). */
export function parseTimestamp(text: string): number | undefined {
  if (!ISO_TIMESTAMP.test(text)) return undefined;
  const withZone = text.length > 10 && !/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text}Z` : text;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? undefined : ms;
}

function likePattern(pattern: string): RegExp {
  const source = pattern
    .split('%')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 'is');
}

/** Bounds on one field implied by the top-level `and` chain (the whole filter still applies on top). */
export interface Bounds {
  min?: number;
  minInclusive: boolean;
  max?: number;
  maxInclusive: boolean;
}

/**
 * The range of a time or number field that any match must lie in, read from
 * the comparisons joined by `and` at the top level. Lists sorted on that field
 * use it to binary-search instead of scanning everything.
 */
export function boundsOf(ast: FilterNode, field: string, kind: FieldKind): Bounds {
  const bounds: Bounds = { minInclusive: true, maxInclusive: true };
  const visit = (node: FilterNode): void => {
    if (node.type === 'and') {
      visit(node.left);
      visit(node.right);
      return;
    }
    if (node.type !== 'cmp' || node.field !== field || node.value === null || node.op === 'lk' || node.op === 'ne') return;
    const v = coerce(kind, node.value, field);
    if (typeof v !== 'number') return;
    if (node.op === 'eq' || node.op === 'gt' || node.op === 'ge') {
      const inclusive = node.op !== 'gt';
      if (bounds.min === undefined || v > bounds.min || (v === bounds.min && !inclusive)) {
        bounds.min = v;
        bounds.minInclusive = inclusive;
      }
    }
    if (node.op === 'eq' || node.op === 'lt' || node.op === 'le') {
      const inclusive = node.op !== 'lt';
      if (bounds.max === undefined || v < bounds.max || (v === bounds.max && !inclusive)) {
        bounds.max = v;
        bounds.maxInclusive = inclusive;
      }
    }
  };
  visit(ast);
  return bounds;
}

/** True when the filter is nothing but an `and` chain of range comparisons on `field`: the bounds alone decide. */
export function isPureRange(ast: FilterNode, field: string): boolean {
  if (ast.type === 'and') return isPureRange(ast.left, field) && isPureRange(ast.right, field);
  return ast.type === 'cmp' && ast.field === field && ast.value !== null && ['eq', 'gt', 'ge', 'lt', 'le'].includes(ast.op);
}

/**
 * The values a field is pinned to by an `eq` or `in` in the top-level `and`
 * chain (undefined when it is not pinned). latest-copies requires assetId this way.
 */
export function pinnedValues(ast: FilterNode, field: string): Literal[] | undefined {
  if (ast.type === 'and') {
    const l = pinnedValues(ast.left, field);
    const r = pinnedValues(ast.right, field);
    if (l && r) return l.filter((v) => r.includes(v));
    return l ?? r;
  }
  if (ast.type === 'cmp' && ast.field === field && ast.op === 'eq') return [ast.value];
  if (ast.type === 'in' && ast.field === field && !ast.negated) return ast.values;
  return undefined;
}

/** Field specs for plain JSON objects: each path is read by walking the object. */
export function objectFields<T extends object>(kinds: Record<string, FieldKind>): FieldSpecs<T> {
  const specs: FieldSpecs<T> = {};
  for (const [path, kind] of Object.entries(kinds)) {
    const parts = path.split('.');
    const read = (item: T): unknown => {
      let cur: unknown = item;
      for (const part of parts) {
        if (cur === null || typeof cur !== 'object') return null;
        cur = (cur as Record<string, unknown>)[part];
      }
      return cur;
    };
    specs[path] = {
      kind,
      get:
        kind === 'time'
          ? (item) => {
              const v = read(item);
              return typeof v === 'string' ? Date.parse(v) : null;
            }
          : (item) => {
              const v = read(item);
              return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null;
            },
    };
  }
  return specs;
}

/** `orderby` as the service takes it: "createTime DESC" or "name ASC, size DESC". */
export interface OrderTerm {
  field: string;
  descending: boolean;
}

export function parseOrderBy<T>(text: string, fields: FieldSpecs<T>): OrderTerm[] {
  const terms: OrderTerm[] = [];
  for (const part of text.split(',')) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    const [field, direction, extra] = words;
    if (!field || extra !== undefined) throw new FilterError(`invalid orderby term "${part.trim()}"`);
    fieldSpec(fields, field);
    const dir = (direction ?? 'ASC').toUpperCase();
    if (dir !== 'ASC' && dir !== 'DESC') throw new FilterError(`orderby direction must be ASC or DESC, got "${direction}"`);
    terms.push({ field, descending: dir === 'DESC' });
  }
  return terms;
}
