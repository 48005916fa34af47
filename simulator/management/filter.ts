/**
 * The management service's `filter` query language, from the product's
 * published grammar (docs/api/api-notes.md, "Filter grammar"):
 *
 *   filter           := logic-expression [ (and | or) logic-expression ] ...
 *   logic-expression := [not] <field-name> <operator> <value> | (<value1>, <value2> ...)
 *
 * read as:
 *
 *   logic-expression := ["not"] FIELD OP scalar | ["not"] FIELD "in" "(" scalar ( "," scalar )* ")"
 *   OP               := eq | ne | gt | ge | lt | le | lk
 *   scalar           := "quoted string" | number | true | false | null | ENUM_CONSTANT
 *
 * `not` prefixes one expression; there is no `not in` operator, no group in
 * parentheses (only a list is parenthesised), no empty list, and a string is
 * quoted unless it is an enumeration constant (`HV_MANAGER`): everything else is a 400 for the caller, as the product
 * answers it. The grammar leaves open how a chain mixing `and` and `or`
 * binds; it is read with `and` binding tighter. Strings take `\"` and `\\`
 * escapes. Fields are dotted paths (`result.status`) and must be known to the
 * list being filtered. Timestamps compare as instants, `lk` takes `%`
 * wildcards (case-insensitive).
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
  | { type: 'in'; field: string; values: Literal[] };

/** A filter the caller got wrong: the message is safe to send back in a 400. */
export class FilterError extends Error {}

type Token =
  | { t: 'word'; v: string; pos: number }
  | { t: 'string'; v: string; pos: number }
  | { t: 'lparen' | 'rparen' | 'comma'; pos: number };

const BAREWORD = /[^\s(),"]/;
const PUNCTUATION: Record<string, 'lparen' | 'rparen' | 'comma'> = { '(': 'lparen', ')': 'rparen', ',': 'comma' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    const punctuation = PUNCTUATION[ch];
    if (/\s/.test(ch)) {
      i++;
    } else if (punctuation) {
      tokens.push({ t: punctuation, pos: i++ });
    } else if (ch === '"') {
      const { value, end } = quotedString(text, i);
      tokens.push({ t: 'string', v: value, pos: i });
      i = end;
      // words and strings are separated by blanks (or punctuation): `eq"a"` and `"a"and` are not the grammar's
      if (i < text.length && BAREWORD.test(text[i] as string)) throw new FilterError(`expected a blank after the string at position ${i}`);
    } else {
      const start = i;
      while (i < text.length && BAREWORD.test(text[i] as string)) i++;
      tokens.push({ t: 'word', v: text.slice(start, i), pos: start });
      if (text[i] === '"') throw new FilterError(`expected a blank before the string at position ${i + 1}`);
    }
  }
  return tokens;
}

/** The string starting at the double quote at `start`, unescaped, and the index after its closing quote. */
function quotedString(text: string, start: number): { value: string; end: number } {
  let value = '';
  for (let i = start + 1; ; ) {
    if (i >= text.length) throw new FilterError(`unterminated string starting at position ${start + 1}`);
    const c = text[i] as string;
    if (c === '"') return { value, end: i + 1 };
    if (c === '\\') {
      const escaped = text[i + 1];
      if (escaped !== '"' && escaped !== '\\') throw new FilterError(`a string takes only \\" and \\\\ escapes (position ${i + 1})`);
      value += escaped;
      i += 2;
    } else {
      value += c;
      i++;
    }
  }
}

const OPERATORS = new Set<string>(['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'lk']);
const RESERVED = new Set<string>([...OPERATORS, 'and', 'or', 'not', 'in']);
const NUMBER = /^-?\d+(\.\d+)?$/;
const ENUM_CONSTANT = /^[A-Z][A-Z0-9_]*$/;
const FIELD_NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  /** the chain of expressions, `and` binding tighter than `or` */
  parse(): FilterNode {
    if (this.tokens.length === 0) throw new FilterError('empty filter');
    let node = this.andChain();
    while (this.keyword('or')) node = { type: 'or', left: node, right: this.andChain() };
    const rest = this.tokens[this.i];
    if (rest) throw new FilterError(`expected and or or at position ${rest.pos + 1}, found ${describe(rest)}`);
    return node;
  }

  private andChain(): FilterNode {
    let node = this.expression();
    while (this.keyword('and')) node = { type: 'and', left: node, right: this.expression() };
    return node;
  }

  private expression(): FilterNode {
    const negated = this.keyword('not');
    const fieldToken = this.next('a field name');
    if (fieldToken.t === 'lparen') throw new FilterError(`parentheses group nothing but a list of values (position ${fieldToken.pos + 1})`);
    if (fieldToken.t !== 'word' || !FIELD_NAME.test(fieldToken.v) || RESERVED.has(fieldToken.v)) {
      throw new FilterError(`expected a field name at position ${fieldToken.pos + 1}, found ${describe(fieldToken)}`);
    }
    const comparison = this.comparison(fieldToken.v);
    return negated ? { type: 'not', operand: comparison } : comparison;
  }

  private comparison(field: string): FilterNode {
    const opToken = this.next('an operator');
    const op = opToken.t === 'word' ? opToken.v : '';
    if (op === 'in') return { type: 'in', field, values: this.list() };
    if (!OPERATORS.has(op)) throw new FilterError(`unknown operator ${opToken.t === 'word' ? op : describe(opToken)} after "${field}" at position ${opToken.pos + 1}`);
    const { value, quoted } = scalar(this.next('a value'));
    return { type: 'cmp', field, op: op as ComparisonOp, value, quoted };
  }

  private list(): Literal[] {
    const open = this.next('"(" after in');
    if (open.t !== 'lparen') throw new FilterError(`in takes a list in parentheses (position ${open.pos + 1})`);
    if (this.tokens[this.i]?.t === 'rparen') throw new FilterError(`empty list at position ${open.pos + 1}`);
    const values: Literal[] = [];
    for (;;) {
      values.push(scalar(this.next('a value')).value);
      const sep = this.next('"," or ")"');
      if (sep.t === 'rparen') return values;
      if (sep.t !== 'comma') throw new FilterError(`expected "," or ")" at position ${sep.pos + 1}`);
    }
  }

  private keyword(word: string): boolean {
    const token = this.tokens[this.i];
    if (token?.t !== 'word' || token.v !== word) return false;
    this.i++;
    return true;
  }

  private next(what: string): Token {
    const token = this.tokens[this.i++];
    if (!token) throw new FilterError(`unexpected end of filter, expected ${what}`);
    return token;
  }
}

/**
 * A value: a quoted string, a number, true, false, null, or an enumeration
 * constant written bare (the seed's own examples: `type eq HV_MANAGER`); any
 * other bare word is an unquoted string.
 */
function scalar(token: Token): { value: Literal; quoted: boolean } {
  if (token.t === 'string') return { value: token.v, quoted: true };
  if (token.t !== 'word') throw new FilterError(`expected a value at position ${token.pos + 1}, found ${describe(token)}`);
  if (token.v === 'null') return { value: null, quoted: false };
  if (token.v === 'true' || token.v === 'false') return { value: token.v === 'true', quoted: false };
  if (NUMBER.test(token.v)) return { value: Number(token.v), quoted: false };
  if (ENUM_CONSTANT.test(token.v)) return { value: token.v, quoted: false };
  throw new FilterError(`unquoted string ${JSON.stringify(token.v.slice(0, 40))} at position ${token.pos + 1}: strings are in double quotes`);
}

function describe(token: Token): string {
  if (token.t === 'word') return `"${token.v}"`;
  if (token.t === 'string') return 'a quoted string';
  return { lparen: '"("', rparen: '")"', comma: '","' }[token.t];
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
      return (item) => values.has(normalise(get(item)));
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
      // a quoted string or an enumeration constant: `name eq 123` is a number where a string is asked
      if (typeof value !== 'string') throw new FilterError(`"${field}" takes a string, got ${JSON.stringify(value)}`);
      return value;
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
  if (ast.type === 'in' && ast.field === field) return ast.values;
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
