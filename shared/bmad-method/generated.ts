/**
 * The `.bmad` fields import adds to a BMAD-METHOD file, as a marked block of frontmatter lines, and
 * their removal on export. The block is inserted as text right after the opening fence (or as a
 * whole new frontmatter when the file had none), so the author's frontmatter, its comments and
 * the body stay byte for byte and export gives back exactly the original file.
 */

export const BLOCK_START = '# crewagent:generated (export to BMAD-METHOD removes the lines down to crewagent:end)';
export const BLOCK_START_ADDED = '# crewagent:generated-frontmatter (export to BMAD-METHOD removes this whole frontmatter)';
export const BLOCK_END = '# crewagent:end';

/** YAML scalars for generated values: ids and versions quoted so YAML never retypes them. */
function yamlLine(key: string, value: string | readonly string[]): string {
  if (Array.isArray(value)) return `${key}: [${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  return `${key}: ${JSON.stringify(value)}`;
}

export type GeneratedFields = Record<string, string | readonly string[]>;

/** `text` with `fields` added at the top of its frontmatter (a frontmatter is created when there is none). */
export function addGeneratedFields(text: string, fields: GeneratedFields): string {
  const eol = /^---\r\n/u.test(text) ? '\r\n' : '\n';
  const lines = Object.entries(fields).map(([k, v]) => yamlLine(k, v));
  if (/^---\r?\n/u.test(text)) {
    const fence = text.startsWith('---\r\n') ? 5 : 4;
    return text.slice(0, fence) + [BLOCK_START, ...lines, BLOCK_END].join(eol) + eol + text.slice(fence);
  }
  return ['---', BLOCK_START_ADDED, ...lines, BLOCK_END, '---'].join(eol) + eol + text;
}

/**
 * Real BMAD steps sometimes write a frontmatter key twice (the same template path under two
 * comments), which YAML and the `.bmad` rules refuse. Import turns every earlier line of such a
 * key into a marked comment (the last one counts, as in most YAML readers); export restores it.
 * Only one-line entries are touched: a key whose value continues on indented lines is left alone.
 */
export const DUPLICATE_PREFIX = '# crewagent:duplicate-key (export restores this line) ';

export interface SetAsideDuplicate {
  key: string;
  /** 1-based line of the file that was set aside. */
  line: number;
}

export function setAsideDuplicateKeys(text: string): { text: string; duplicates: SetAsideDuplicate[] } {
  if (!/^---\r?\n/u.test(text)) return { text, duplicates: [] };
  const lines = text.split('\n');
  const close = lines.findIndex((l, i) => i > 0 && /^---[ \t]*\r?$/u.test(l));
  if (close < 0) return { text, duplicates: [] };
  const lastAt = new Map<string, number>();
  const keyAt = (i: number) => /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]|\r?$)/u.exec(lines[i]!)?.[1];
  for (let i = 1; i < close; i++) {
    const key = keyAt(i);
    if (key) lastAt.set(key, i);
  }
  const duplicates: SetAsideDuplicate[] = [];
  for (let i = 1; i < close; i++) {
    const key = keyAt(i);
    const oneLine = !/^[ \t]/u.test(lines[i + 1] ?? '') || i + 1 === close;
    if (key && lastAt.get(key) !== i && oneLine) {
      lines[i] = DUPLICATE_PREFIX + lines[i]!;
      duplicates.push({ key, line: i + 1 });
    }
  }
  return { text: duplicates.length > 0 ? lines.join('\n') : text, duplicates };
}

/**
 * A frontmatter that is not valid YAML (a real BMAD file with an unquoted `: ` in a value) would
 * make the whole file unreadable in the package: import turns each of its lines into a marked
 * comment, so the file loads with the generated fields only; export restores the lines.
 */
export const INVALID_PREFIX = '# crewagent:invalid-yaml (export restores this line) ';

export function setAsideFrontmatter(text: string): string {
  if (!/^---\r?\n/u.test(text)) return text;
  const lines = text.split('\n');
  const close = lines.findIndex((l, i) => i > 0 && /^---[ \t]*\r?$/u.test(l));
  if (close < 0) return text;
  for (let i = 1; i < close; i++) lines[i] = INVALID_PREFIX + lines[i]!;
  return lines.join('\n');
}

function restoreDuplicateKeys(text: string): string {
  let out = text;
  for (const prefix of [DUPLICATE_PREFIX, INVALID_PREFIX]) if (out.includes(prefix)) out = out.split(`\n${prefix}`).join('\n');
  return out;
}

/** A value of the generated block (`exportAs`, `nodeId`), or undefined when the block or the key is not there. */
export function generatedField(text: string, key: string): string | undefined {
  const fence = /^---\r?\n/u.exec(text);
  if (!fence) return undefined;
  const end = text.indexOf(BLOCK_END, fence[0].length);
  if (end < 0 || !(text.startsWith(BLOCK_START, fence[0].length) || text.startsWith(BLOCK_START_ADDED, fence[0].length))) return undefined;
  const line = new RegExp(`^${key}: (.*?)\\r?$`, 'mu').exec(text.slice(fence[0].length, end))?.[1];
  if (line === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export type StripResult = { ok: true; text: string } | { ok: false; text: string };

/**
 * The file as BMAD-METHOD wrote it: the generated block removed. `ok: false` when the markers are
 * gone (someone rewrote the frontmatter): the text is then returned unchanged, for a warning.
 */
export function stripGeneratedFields(text: string): StripResult {
  const eol = /^---\r\n/u.test(text) ? '\r\n' : '\n';
  const fence = `---${eol}`;
  if (!text.startsWith(fence)) return { ok: false, text };
  const end = text.indexOf(`${BLOCK_END}${eol}`, fence.length);
  if (end < 0) return { ok: false, text };
  const afterBlock = end + BLOCK_END.length + eol.length;
  if (text.startsWith(BLOCK_START_ADDED + eol, fence.length)) {
    if (!text.startsWith(fence, afterBlock)) return { ok: false, text };
    return { ok: true, text: restoreDuplicateKeys(text.slice(afterBlock + fence.length)) };
  }
  if (text.startsWith(BLOCK_START + eol, fence.length)) return { ok: true, text: restoreDuplicateKeys(fence + text.slice(afterBlock)) };
  return { ok: false, text };
}
