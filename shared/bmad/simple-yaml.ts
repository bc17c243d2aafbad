/**
 * A fast reading of the plain YAML that frontmatter is nearly always written in, or `undefined`
 * when the text is anything else; `parseFrontmatter` then asks the `yaml` library, which stays the
 * one authority. Why hand-written beside a library: on a 10 MB import the library's document model
 * (lexer, CST, nodes, then `toJS`) was two thirds of validating the package, about 36 µs per
 * step file, for texts like `nodeId: "a"` and `inputs: ["x.md"]` (issue 19's import row).
 *
 * The rule that keeps it safe: on every text it accepts it gives exactly what
 * `parseDocument(text, { schema: 'core', strict: true, uniqueKeys: true }).toJS()` gives, and it
 * accepts nothing the library would refuse. `simple-yaml.test.ts` holds it to that on the test
 * packages and on a seeded fuzz of texts built from the same pieces, each compared with the library.
 * What it accepts, and nothing more:
 * - block mappings of keys `[A-Za-z_][A-Za-z0-9_-]*` (no YAML keyword, no `__proto__`, no repeat),
 *   one space-indented `key: value` per line; a key with nothing after it holds a deeper mapping,
 *   a deeper block sequence, or null;
 * - block sequences (`- item`, deeper than their key), items being values or `- key: value`
 *   mappings continued two columns in;
 * - values on one line: "double-quoted" with JSON's escapes only, 'single-quoted', `[flow, "lists"]`
 *   of such strings and simple words, `{}`, `true` / `false` / `null` (and their capitalised spellings),
 *   small decimal integers, and plain text that starts with a letter, `_` or a non-ASCII
 *   character, with no ` #`, no `: `, no trailing `:` and no trailing space;
 * - empty lines and whole-line comments between entries; LF or CRLF line ends.
 * Anything else — tabs, anchors and aliases, tags, block scalars, multi-line scalars, non-empty
 * flow mappings, floats, odd indentation, a character the library might read as white space — declines.
 */

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/u;
const INDENT = /^ */u;
/** Characters the fast path takes: printable, not a tab, not a Unicode space or BOM the library (or `trim`) might treat as white space. */
const OUTSIDE = /[^\n\x20-\x7e\u00a1-\ud7ff\ue000-\ufffd]|[\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/u;
const DOUBLE = /^"(?:[^"\\]|\\["\\/bfnrt])*"$/u;
const SINGLE = /^'(?:[^']|'')*'$/u;
const DOUBLE_AT = /"(?:[^"\\]|\\["\\/bfnrt])*"/uy;
const SINGLE_AT = /'(?:[^']|'')*'/uy;
const WORD_AT = /[A-Za-z_][A-Za-z0-9_./-]*/uy;
const INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/u;
const EMPTY_MAP = /^\{ *\}$/u;
/**
 * Plain text: a first character that is no indicator, digit, sign or dot; then a `:` only before
 * another non-space, a space only before another non-`#` (` #` starts a comment), no trailing space.
 */
const PLAIN = /^[A-Za-z_\u00a1-\ud7ff\ue000-\ufffd](?:[^:# ]|:(?=[^ ])| (?=[^#])|#)*$/u;
const KEYWORDS: ReadonlyMap<string, null | boolean> = new Map<string, null | boolean>([
  ['null', null], ['Null', null], ['NULL', null],
  ['true', true], ['True', true], ['TRUE', true],
  ['false', false], ['False', false], ['FALSE', false],
]);

const DECLINE = Symbol('decline');

interface Line {
  indent: number;
  text: string;
}

/** A scalar or flow list written on one line, or DECLINE. */
function inlineValue(text: string): unknown | typeof DECLINE {
  const first = text[0];
  if (first === '"') return DOUBLE.test(text) ? (JSON.parse(text) as string) : DECLINE;
  if (first === "'") return SINGLE.test(text) ? text.slice(1, -1).replaceAll("''", "'") : DECLINE;
  if (first === '[') return flowList(text);
  if (first === '{') return EMPTY_MAP.test(text) ? {} : DECLINE;
  if (KEYWORDS.has(text)) return KEYWORDS.get(text)!;
  if (INTEGER.test(text)) return text === '-0' ? DECLINE : Number(text);
  if (!PLAIN.test(text)) return DECLINE;
  return text;
}

/** `[]`, `["a", 'b', c]`: quoted strings and simple words, comma-separated, nothing trailing. */
function flowList(text: string): unknown[] | typeof DECLINE {
  const items: unknown[] = [];
  let at = 1;
  const skipSpaces = () => {
    while (text[at] === ' ') at++;
  };
  skipSpaces();
  if (text[at] === ']') return at === text.length - 1 ? items : DECLINE;
  for (;;) {
    skipSpaces();
    const pattern = text[at] === '"' ? DOUBLE_AT : text[at] === "'" ? SINGLE_AT : WORD_AT;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) return DECLINE;
    const token = match[0];
    at += token.length;
    if (pattern === DOUBLE_AT) items.push(JSON.parse(token) as string);
    else if (pattern === SINGLE_AT) items.push(token.slice(1, -1).replaceAll("''", "'"));
    else if (KEYWORDS.has(token)) items.push(KEYWORDS.get(token)!);
    else items.push(token);
    skipSpaces();
    if (text[at] === ',') {
      at++;
      continue;
    }
    return text[at] === ']' && at === text.length - 1 ? items : DECLINE;
  }
}

class Reader {
  readonly #lines: readonly Line[];
  #at = 0;

  constructor(lines: readonly Line[]) {
    this.#lines = lines;
  }

  peek(): Line | undefined {
    return this.#lines[this.#at];
  }

  take(): Line {
    return this.#lines[this.#at++]!;
  }

  get done(): boolean {
    return this.#at >= this.#lines.length;
  }
}

/** Pairs at exactly `indent`, starting with `first` when a sequence item already read the first key. */
function mapping(reader: Reader, indent: number, first?: { key: string; rest: string | undefined }): Record<string, unknown> | typeof DECLINE {
  const out: Record<string, unknown> = {};
  const add = (key: string, rest: string | undefined): boolean => {
    if (Object.hasOwn(out, key) || key === '__proto__' || KEYWORDS.has(key)) return false;
    const value = rest === undefined || rest === '' ? nested(reader, indent) : inlineValue(rest);
    if (value === DECLINE) return false;
    out[key] = value;
    return true;
  };
  if (first && !add(first.key, first.rest)) return DECLINE;
  for (;;) {
    const line = reader.peek();
    if (line === undefined || line.indent < indent) return out;
    if (line.indent > indent) return DECLINE;
    const match = KEY.exec(line.text);
    if (!match) return DECLINE;
    reader.take();
    if (!add(match[1]!, match[2])) return DECLINE;
  }
}

/** What an empty `key:` at `indent` holds: a deeper mapping, a deeper sequence, or null. */
function nested(reader: Reader, indent: number): unknown | typeof DECLINE {
  const next = reader.peek();
  if (next === undefined || next.indent <= indent) return null;
  return next.text.startsWith('- ') ? sequence(reader, next.indent) : mapping(reader, next.indent);
}

/** `- item` lines at exactly `indent`; a deeper line after an item (a continued scalar) declines. */
function sequence(reader: Reader, indent: number): unknown[] | typeof DECLINE {
  const out: unknown[] = [];
  for (;;) {
    const line = reader.peek();
    if (line === undefined || line.indent < indent) return out;
    if (line.indent > indent || !line.text.startsWith('- ')) return line.indent === indent ? out : DECLINE;
    reader.take();
    const rest = line.text.slice(2);
    if (rest === '' || rest.startsWith(' ') || rest.startsWith('-')) return DECLINE;
    const pair = KEY.exec(rest);
    const item = pair ? mapping(reader, indent + 2, { key: pair[1]!, rest: pair[2] }) : inlineValue(rest);
    if (item === DECLINE) return DECLINE;
    out.push(item);
  }
}

/**
 * The mapping `text` holds, when it is written in the plain subset described above; `undefined`
 * otherwise (the caller asks the `yaml` library).
 */
export function readSimpleYaml(text: string): Record<string, unknown> | undefined {
  if (OUTSIDE.test(text.replaceAll('\r\n', '\n'))) return undefined;
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') continue;
    const indent = INDENT.exec(line)![0].length;
    if (indent === line.length) return undefined;
    if (line[indent] === '#') continue;
    lines.push({ indent, text: line.slice(indent) });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return undefined;
  const reader = new Reader(lines);
  const data = mapping(reader, 0);
  return data === DECLINE || !reader.done ? undefined : data;
}
