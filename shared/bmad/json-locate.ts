/**
 * Finds where a JSON text stops being valid JSON (RFC 8259), for error messages: engines differ in
 * whether JSON.parse says where ("Unexpected token ',', "[," is not valid JSON" has no position).
 * Runs only after JSON.parse has failed; iterative, so deep nesting cannot overflow the stack.
 */

export interface JsonSyntaxError {
  offset: number;
  reason: string;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/uy;
const STRING_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The first syntax error in `text`, or null when it is valid JSON. */
export function locateJsonError(text: string): JsonSyntaxError | null {
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const fail = (reason: string): JsonSyntaxError => ({ offset: i, reason });
  const describe = () => (i >= text.length ? 'Unexpected end of JSON input' : `Unexpected character ${JSON.stringify(text[i])}`);

  /** Reads a string starting at text[i] === '"'; returns an error or null. */
  const readString = (): JsonSyntaxError | null => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return null;
      }
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/u.test(text.slice(i + 2, i + 6))) return fail('Bad \\u escape in string');
          i += 6;
        } else if (e !== undefined && STRING_ESCAPES.has(e)) i += 2;
        else return fail('Bad escape in string');
      } else if (c.charCodeAt(0) < 0x20) return fail('Unescaped control character in string');
      else i++;
    }
    return fail('Unterminated string');
  };

  // The open containers, innermost last, and what the reader expects next.
  type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close';
  const stack: Array<'[' | '{'> = [];
  let expect: Expect = 'value';
  for (;;) {
    skip();
    const c = text[i];
    const top = stack[stack.length - 1];
    if (expect === 'value' || expect === 'value-or-close') {
      if (expect === 'value-or-close' && c === ']') {
        i++;
        stack.pop();
        expect = 'comma-or-close';
      } else if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        expect = c === '{' ? 'key-or-close' : 'value-or-close';
        continue;
      } else if (c === '"') {
        const error = readString();
        if (error) return error;
        expect = 'comma-or-close';
      } else if (c !== undefined && text.startsWith('true', i)) {
        i += 4;
        expect = 'comma-or-close';
      } else if (c !== undefined && text.startsWith('false', i)) {
        i += 5;
        expect = 'comma-or-close';
      } else if (c !== undefined && text.startsWith('null', i)) {
        i += 4;
        expect = 'comma-or-close';
      } else {
        NUMBER.lastIndex = i;
        if (c === undefined || !NUMBER.test(text)) return fail(describe());
        i = NUMBER.lastIndex;
        expect = 'comma-or-close';
      }
      if (stack.length === 0) {
        skip();
        return i >= text.length ? null : fail('Unexpected non-whitespace character after JSON');
      }
      continue;
    }
    if (expect === 'key' || expect === 'key-or-close') {
      if (expect === 'key-or-close' && c === '}') {
        i++;
        stack.pop();
        expect = 'comma-or-close';
        if (stack.length === 0) {
          skip();
          return i >= text.length ? null : fail('Unexpected non-whitespace character after JSON');
        }
        continue;
      }
      if (c !== '"') return fail(i >= text.length ? describe() : 'Expected a double-quoted property name');
      const error = readString();
      if (error) return error;
      expect = 'colon';
      continue;
    }
    if (expect === 'colon') {
      if (c !== ':') return fail("Expected ':' after property name");
      i++;
      expect = 'value';
      continue;
    }
    // comma-or-close inside a container
    if (!top) return i >= text.length ? null : fail('Unexpected non-whitespace character after JSON');
    const close = top === '[' ? ']' : '}';
    if (c === ',') {
      i++;
      expect = top === '[' ? 'value' : 'key';
    } else if (c === close) {
      i++;
      stack.pop();
      if (stack.length === 0) {
        skip();
        return i >= text.length ? null : fail('Unexpected non-whitespace character after JSON');
      }
    } else {
      return fail(i >= text.length ? describe() : `Expected ',' or '${close}'`);
    }
  }
}
