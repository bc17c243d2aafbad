/**
 * YAML frontmatter of workflow.md and step files: split, parse and serialize. The fence must start
 * at byte 0 (after an optional UTF-8 BOM); CRLF is tolerated. Hostile YAML (duplicate keys, alias
 * bombs, huge or deeply nested documents) becomes a problem value, never an exception.
 * serializeFrontmatter round-trips: parse(serialize(data, body)) gives back data and the same body.
 */
import { parseDocument, stringify } from 'yaml';
import { MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_DEPTH, MAX_YAML_ALIAS_COUNT, exceedsUtf8Bytes, utf8ByteLength } from './limits.ts';
import { readSimpleYaml } from './simple-yaml.ts';
import type { Eol } from './json-text.ts';

export type FrontmatterProblemKind =
  | 'missing'
  | 'not-at-start'
  | 'unclosed'
  | 'too-large'
  | 'yaml'
  | 'duplicate-key'
  | 'alias-limit'
  | 'too-deep'
  | 'not-a-mapping';

export interface FrontmatterProblem {
  kind: FrontmatterProblemKind;
  message: string;
  hint?: string;
  /** 1-based line in the whole file. */
  line?: number;
}

export interface ParsedFrontmatter {
  data: Record<string, unknown>;
  /** The YAML text between the fences, as written. */
  yaml: string;
  /** Everything after the closing fence line, byte for byte. */
  body: string;
  /** 1-based line of the file on which the body starts. */
  bodyStartLine: number;
  bom: boolean;
  eol: Eol;
}

export type FrontmatterResult = { ok: true; value: ParsedFrontmatter } | { ok: false; problems: FrontmatterProblem[] };

export interface FrontmatterOptions {
  maxBytes?: number;
  maxAliasCount?: number;
  maxDepth?: number;
}

const BOM = '\uFEFF';
const FENCE = /^---[ \t]*$/u;

export type Split =
  | { ok: true; yaml: string; body: string; bom: boolean; eol: Eol; bodyStartLine: number }
  | { ok: false; problem: FrontmatterProblem };

export function splitFrontmatter(text: string): Split {
  const bom = text.startsWith(BOM);
  const start = bom ? 1 : 0;
  const firstEnd = text.indexOf('\n', start);
  const firstLine = text.slice(start, firstEnd === -1 ? text.length : firstEnd).replace(/\r$/u, '');
  if (firstEnd === -1 || !FENCE.test(firstLine)) {
    if (/^\s*---[ \t]*\r?\n/u.test(text.slice(start))) {
      return {
        ok: false,
        problem: {
          kind: 'not-at-start',
          message: 'The frontmatter does not start at the very first byte of the file.',
          hint: 'Remove the blank lines or spaces before the opening ---.',
        },
      };
    }
    return {
      ok: false,
      problem: {
        kind: 'missing',
        message: 'The file does not start with a --- frontmatter block.',
        hint: 'Start the file with a line "---", the YAML fields, then another line "---".',
      },
    };
  }
  const eol = text[firstEnd - 1] === '\r' ? '\r\n' : '\n';
  let lineStart = firstEnd + 1;
  let line = 2;
  while (lineStart <= text.length) {
    const end = text.indexOf('\n', lineStart);
    const lineEnd = end === -1 ? text.length : end;
    // Only a line starting with --- can close the block: other lines are not copied out to test.
    if (text.startsWith('---', lineStart) && FENCE.test(text.slice(lineStart, lineEnd).replace(/\r$/u, ''))) {
      return {
        ok: true,
        yaml: text.slice(firstEnd + 1, lineStart),
        body: end === -1 ? '' : text.slice(end + 1),
        bom,
        eol,
        bodyStartLine: line + 1,
      };
    }
    if (end === -1) break;
    lineStart = end + 1;
    line++;
  }
  return {
    ok: false,
    problem: {
      kind: 'unclosed',
      message: 'The frontmatter block is never closed.',
      hint: 'Add a line "---" after the last YAML field.',
      line: 1,
    },
  };
}

/** Depth of nested arrays/objects, walked without recursion; stops counting past `limit`. */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Rough depth of YAML flow collections (`[`, `{`) outside quotes, so absurd nesting is refused
 * before the parser recurses into it. Approximate (brackets in comments count, an apostrophe in a
 * plain scalar hides what follows); the parser's own stack-overflow error is the backstop.
 */
function flowDepthExceeds(yaml: string, limit: number): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < yaml.length; i++) {
    const c = yaml[i];
    if (quote !== null) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > limit) return true;
    } else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
  }
  return false;
}

function keyOnLine(yaml: string, line: number): string | undefined {
  const text = yaml.split('\n')[line - 1];
  const match = text === undefined ? null : /^\s*(?:-\s+)?("[^"]*"|'[^']*'|[^:#]+?)\s*:/u.exec(text);
  return match?.[1]?.replace(/^["']|["']$/gu, '');
}

/** The `yaml` library's reading of a frontmatter: its data, or the problems it found (with file lines). */
function readWithLibrary(yaml: string, maxAliasCount: number, tooDeep: FrontmatterProblem): { data: unknown } | { problems: FrontmatterProblem[] } {
  try {
    // Without prettyErrors on the way that succeeds (it counts every line for positions an error
    // would cite); a text with errors is parsed again with it, for the line numbers of its messages.
    let doc = parseDocument(yaml, { prettyErrors: false, uniqueKeys: true, schema: 'core', strict: true });
    if (doc.errors.length > 0) doc = parseDocument(yaml, { prettyErrors: true, uniqueKeys: true, schema: 'core', strict: true });
    // yaml turns a stack overflow while composing into errors instead of throwing.
    if (doc.errors.some((e) => /call stack|too much recursion/iu.test(e.message))) return { problems: [tooDeep] };
    if (doc.errors.length > 0) {
      return {
        problems: doc.errors.map((error): FrontmatterProblem => {
          const yamlLine = error.linePos?.[0].line;
          const line = yamlLine === undefined ? undefined : yamlLine + 1;
          const where = line === undefined ? '' : ` (line ${line})`;
          if (error.code === 'DUPLICATE_KEY') {
            const key = yamlLine === undefined ? undefined : keyOnLine(yaml, yamlLine);
            return {
              kind: 'duplicate-key',
              message: `Duplicate key${key ? ` "${key}"` : ''} in the frontmatter${where}.`,
              hint: 'Each key may appear once; keep one and delete the other.',
              ...(line === undefined ? {} : { line }),
            };
          }
          const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/u, '');
          return {
            kind: 'yaml',
            message: `The frontmatter is not valid YAML: ${reason}${where}.`,
            hint: 'Check indentation, and quote values that contain ": " or start with a special character.',
            ...(line === undefined ? {} : { line }),
          };
        }),
      };
    }
    return { data: doc.toJS({ maxAliasCount }) as unknown };
  } catch (error) {
    if (error instanceof ReferenceError && /alias/iu.test(error.message)) {
      return {
        problems: [
          {
            kind: 'alias-limit',
            message: 'The frontmatter expands too many YAML aliases (*name).',
            hint: 'Write the values out instead of using anchors and aliases.',
          },
        ],
      };
    }
    if (error instanceof RangeError) return { problems: [tooDeep] };
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { problems: [{ kind: 'yaml', message: `The frontmatter is not valid YAML: ${reason}` }] };
  }
}

export function parseFrontmatter(text: string, options: FrontmatterOptions = {}): FrontmatterResult {
  const split = splitFrontmatter(text);
  if (!split.ok) return { ok: false, problems: [split.problem] };
  const { yaml } = split;
  const maxBytes = options.maxBytes ?? MAX_FRONTMATTER_BYTES;
  if (exceedsUtf8Bytes(yaml, maxBytes)) {
    return {
      ok: false,
      problems: [{ kind: 'too-large', message: `The frontmatter is ${utf8ByteLength(yaml)} bytes; the limit is ${maxBytes}.`, line: 2 }],
    };
  }
  const maxDepth = options.maxDepth ?? MAX_FRONTMATTER_DEPTH;
  const tooDeep: FrontmatterProblem = { kind: 'too-deep', message: `The frontmatter is nested more than ${maxDepth} levels deep.` };
  // Plain key: value frontmatter is read directly (exactly as the library reads it: no flow nesting
  // to fear, its depth checked below); the rest by the library, after the guard against deep flows.
  let data: unknown = readSimpleYaml(yaml);
  if (data === undefined) {
    if (flowDepthExceeds(yaml, maxDepth)) return { ok: false, problems: [tooDeep] };
    const read = readWithLibrary(yaml, options.maxAliasCount ?? MAX_YAML_ALIAS_COUNT, tooDeep);
    if ('problems' in read) return { ok: false, problems: read.problems };
    data = read.data;
  }
  if (depthExceeds(data, maxDepth)) return { ok: false, problems: [tooDeep] };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return {
      ok: false,
      problems: [
        {
          kind: 'not-a-mapping',
          message:
            data === null || data === undefined
              ? 'The frontmatter is empty.'
              : 'The frontmatter must be a YAML mapping (key: value lines).',
          hint: 'Write one "key: value" per line between the --- fences.',
          line: 2,
        },
      ],
    };
  }
  return {
    ok: true,
    value: {
      data: data as Record<string, unknown>,
      yaml,
      body: split.body,
      bodyStartLine: split.bodyStartLine,
      bom: split.bom,
      eol: split.eol,
    },
  };
}

export interface SerializeOptions {
  bom?: boolean;
  eol?: Eol;
}

/** `---\n<yaml>---\n<body>`, with strings that YAML would read as numbers or booleans quoted. */
export function serializeFrontmatter(data: Record<string, unknown>, body: string, options: SerializeOptions = {}): string {
  const yaml = stringify(data, { lineWidth: 0, aliasDuplicateObjects: false });
  let head = `---\n${yaml}---\n`;
  if (options.eol === '\r\n') head = head.replaceAll('\n', '\r\n');
  return (options.bom ? BOM : '') + head + body;
}
