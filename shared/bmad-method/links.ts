/**
 * The links of one BMAD-METHOD step file: what it tells the model to load next. Found in the
 * frontmatter (`nextStepFile: './step-02-vision.md'`, `altStepFile`, any string naming a .md
 * file) and in the body ("load `./step-01b-continue.md`", "read fully and follow: {nextStepFile}").
 * Each link gets a label from the line that uses it: a menu choice (`IF A (Parity Check): …` with
 * `**[A] Parity Check**`), a condition (`If lastStep = 1 → Load …`), or the frontmatter key.
 */
import { parseFrontmatter } from '../bmad/frontmatter.ts';

export interface RawLink {
  /** As written: `./step-02.md`, `{project-root}/…/step-01.md`, `step-v-03.md`. */
  target: string;
  /** The frontmatter key that holds it, when it came from the frontmatter. */
  key?: string;
  label: string;
  /** 1-based line of the file where the link is used first. */
  line: number;
}

export interface StepText {
  /** The file as uploaded. */
  raw: string;
  frontmatter: Record<string, unknown>;
  /** False when a frontmatter block is there but does not parse. */
  frontmatterOk: boolean;
  body: string;
  bodyStartLine: number;
  title?: string;
}

export function readStepText(text: string): StepText {
  const parsed = parseFrontmatter(text);
  if (parsed.ok) {
    const title = /^#\s+(.+?)\s*$/mu.exec(parsed.value.body)?.[1];
    return { raw: text, frontmatter: parsed.value.data, frontmatterOk: true, body: parsed.value.body, bodyStartLine: parsed.value.bodyStartLine, ...(title ? { title } : {}) };
  }
  const hasBlock = /^\uFEFF?---\r?\n/u.test(text);
  const title = /^#\s+(.+?)\s*$/mu.exec(text)?.[1];
  return { raw: text, frontmatter: {}, frontmatterOk: !hasBlock, body: text, bodyStartLine: 1, ...(title ? { title } : {}) };
}

const MD_TOKEN = /[\w{}\-./]*[\w}]\.md\b/gu;
const MAX_LABEL = 60;

function clean(text: string): string {
  return text.replace(/[*`_]/gu, '').replace(/\s+/gu, ' ').trim();
}

/** `[A] Parity Check` menu items of the body, by letter. */
function menuItems(body: string): Map<string, string> {
  const items = new Map<string, string>();
  for (const m of body.matchAll(/\[([A-Z])\]\s*([^\n[]*)/gu)) {
    const letter = m[1]!;
    const text = clean(m[2]!.split(/\s[-–—]\s/u)[0]!);
    if (!items.has(letter) && text) items.set(letter, `[${letter}] ${text}`);
  }
  return items;
}

function shorten(label: string): string {
  return label.length <= MAX_LABEL ? label : `${label.slice(0, MAX_LABEL - 1).trimEnd()}…`;
}

/** The label of a link from the line that uses it; `fallback` when the line says nothing. */
export function labelFromLine(line: string, menu: ReadonlyMap<string, string>, fallback: string): string {
  const condition = /\bif\s+(.+?)\s*(?::|→|->|,\s*then\b)/iu.exec(clean(line))?.[1];
  if (condition) {
    const letter = /^([A-Z])\b/u.exec(condition)?.[1];
    if (letter && menu.has(letter)) return shorten(menu.get(letter)!);
    return shorten(condition);
  }
  const choice = /\[([A-Z])\]/u.exec(line)?.[1];
  if (choice && menu.has(choice)) return shorten(menu.get(choice)!);
  return fallback;
}

function keyLabel(key: string): string {
  return key === 'nextStepFile' ? 'next' : key;
}

/** Every link of a step, in order of first use; a target used twice is one link. */
export function stepLinks(step: StepText): RawLink[] {
  const links = new Map<string, RawLink>();
  const menu = menuItems(step.body);
  const lines = step.body.split('\n');
  const keys = new Map<string, string>();
  for (const [key, value] of Object.entries(step.frontmatter)) {
    if (typeof value === 'string' && /\.md\s*$/u.test(value) && !/^\{[^}]*(artifacts|output|folder)[^}]*\}/iu.test(value)) keys.set(key, value.trim());
  }
  const add = (target: string, line: number, label: string, key?: string) => {
    if (!links.has(target)) links.set(target, { target, label, line, ...(key ? { key } : {}) });
  };
  lines.forEach((text, i) => {
    const line = i + step.bodyStartLine;
    for (const [key, target] of keys) {
      if (text.includes(`{${key}}`)) add(target, line, labelFromLine(text, menu, keyLabel(key)), key);
    }
    for (const m of text.matchAll(MD_TOKEN)) {
      const token = m[0];
      const base = token.slice(token.lastIndexOf('/') + 1);
      if (!/^step[\w.-]*\.md$/u.test(base)) continue;
      const key = [...keys].find(([, target]) => target === token)?.[0];
      add(token, line, labelFromLine(text, menu, key ? keyLabel(key) : 'next'), key);
    }
  });
  // Frontmatter links the body never mentions still say where the step goes.
  for (const [key, target] of keys) add(target, step.bodyStartLine, keyLabel(key), key);
  return [...links.values()];
}
