/**
 * How deeply a JSON text nests objects and arrays, measured on the text before it is parsed.
 * `JSON.parse` takes any depth, but what walks the value afterwards does not: a change set nested
 * 150,000 levels deep overflows the stack of the structured clone that carries it to the session
 * object (a 500 instead of a clear refusal), and the validators and canonical hashing recurse too.
 * One pass over the characters, strings skipped; no allocation.
 */

/** Deeper than any real body: a change set's deepest payload (graph → nodes → data → …) is about a dozen levels. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** True when `text` opens more than `max` objects or arrays inside one another (whether or not it is valid JSON). */
export function jsonNestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
