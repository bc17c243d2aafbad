/**
 * Parses a package's .json file text into a value, or into issues that say where the text breaks
 * (line and column), never throwing. Used by stage 1 of the pipeline and the single-file validators.
 */
import { errorIssue } from './issues.ts';
import { locateJsonError } from './json-locate.ts';
import type { ValidationIssue } from './issues.ts';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from '../json-depth.ts';
import { MAX_TEXT_FILE_BYTES, exceedsUtf8Bytes, utf8ByteLength } from './limits.ts';

/** A file's line ending: CRLF when its first line break is one (a package written on Windows), else LF. */
export type Eol = '\n' | '\r\n';

export function eolOf(text: string | null | undefined): Eol {
  const at = text?.indexOf('\n') ?? -1;
  return at > 0 && text![at - 1] === '\r' ? '\r\n' : '\n';
}

/**
 * A JSON file the product writes again (bmad.json on export, agents.json on an agent save): two
 * spaces, a final line break, and the line ending the file had, so a package written with CRLF
 * keeps it and a save changes only the lines it changed.
 */
export function jsonFileText(value: unknown, eol: Eol = '\n'): string {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  return eol === '\n' ? text : text.replaceAll('\n', '\r\n');
}

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/** Where and why the text is not JSON, the same in every engine (their JSON.parse messages differ). */
function describeSyntaxError(error: unknown, text: string): string {
  const located = locateJsonError(text);
  if (!located) return error instanceof Error ? error.message : String(error);
  const { line, column } = lineAndColumn(text, located.offset);
  return `${located.reason} (line ${line}, column ${column})`;
}

export function tooLargeIssue(filePath: string, bytes: number, limit: number): ValidationIssue {
  return errorIssue('FILE_TOO_LARGE', filePath, `${filePath} is ${bytes} bytes; the limit is ${limit} bytes.`, {
    hint: 'Split the content or move long reference text into an asset.',
  });
}

export function parseJsonText(text: string, filePath: string, maxBytes = MAX_TEXT_FILE_BYTES): JsonTextResult {
  if (exceedsUtf8Bytes(text, maxBytes)) return { ok: false, issues: [tooLargeIssue(filePath, utf8ByteLength(text), maxBytes)] };
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.trim() === '') {
    return {
      ok: false,
      issues: [errorIssue('JSON_PARSE_ERROR', filePath, `${filePath} is empty.`, { hint: 'It must contain a JSON object.' })],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(source) as unknown;
  } catch (error) {
    return {
      ok: false,
      issues: [
        errorIssue('JSON_PARSE_ERROR', filePath, `${filePath} is not valid JSON: ${describeSyntaxError(error, source)}`, {
          hint: 'Check for a missing comma or quote, or a trailing comma, near that position.',
        }),
      ],
    };
  }
  // JSON.parse takes any depth, but what walks the value afterwards (zod, hashing, the relayout)
  // recurses: nesting no package file needs is refused here, after a broken text has been located.
  if (jsonNestsDeeper(source)) {
    return {
      ok: false,
      issues: [
        errorIssue('JSON_PARSE_ERROR', filePath, `${filePath} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`, {
          hint: `Flatten the file so no value sits more than ${MAX_JSON_DEPTH} levels inside another.`,
        }),
      ],
    };
  }
  return { ok: true, value };
}
