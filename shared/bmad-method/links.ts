/**
 * The links of one BMAD-METHOD step file: what it tells the model to load next. Found in the
 * frontmatter (`nextStepFile: './step-02-vision.md'`, `altStepFile`, any string naming a .md
 * file) and in the body ("load `./step-01b-continue.md`", "read fully and follow: {nextStepFile}",
 * any `.md` path, in any script; derive keeps those that resolve to a step file). Each link gets a
 * label from the line that uses it: a menu choice (`IF A (Parity Check): …` with `**[A] Parity
 * Check**`, or `IF E (Edit):` alone), a condition (`If lastStep = 1 → Load …`), or the frontmatter
 * key. `exitOption` finds a menu's Exit choice, for a looping step's way out (build-graph.ts).
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
  // The title is the body's `# Heading`, never a `# …` comment line of the frontmatter block (set-aside invalid YAML).
  const afterBlock = hasBlock ? text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/u, '') : text;
  const title = /^#\s+(.+?)\s*$/mu.exec(afterBlock)?.[1];
  return { raw: text, frontmatter: {}, frontmatterOk: !hasBlock, body: text, bodyStartLine: 1, ...(title ? { title } : {}) };
}

/** A `.md` path in running text; names in any script (`./steps/步骤-02.md`) count. */
const MD_TOKEN = /[\p{L}\p{N}_{}\-./]*[\p{L}\p{N}_}]\.md(?![\p{L}\p{N}_])/giu;
const MAX_LABEL = 60;

function clean(text: string): string {
  return text.replace(/[*`_]/gu, '').replace(/\s+/gu, ' ').trim();
}

/** A menu key: one letter or digit (`[A]`, `[1]`), or one capitalised word (`[Back]`, `[Details]`). */
const MENU_KEY = String.raw`[A-Z0-9]|[A-Z][a-z]+`;

/** `[A] Parity Check`, `[1] Free Listing`, `[Back] - choose another method` menu items of the body, by key. */
function menuItems(body: string): Map<string, string> {
  const items = new Map<string, string>();
  // A key that opens its line (`[E] Exit Party Mode`, `- **[C] Continue**`) is a menu entry; one
  // mentioned inside a sentence (`Present [E] exit option after each round`) names it only when
  // no line opens with it.
  const mentioned = new Map<string, string>();
  for (const m of body.matchAll(new RegExp(String.raw`\[(${MENU_KEY})\]\s*([^\n[]*)`, 'gu'))) {
    const key = m[1]!;
    // "[Back] - choose another method" names the item after the dash; "[A] Parity - more" before it.
    const rest = clean(m[2]!).replace(/^[-–—:]\s*/u, '');
    const text = clean(rest.split(/\s[-–—]\s/u)[0]!).replace(/["':]+$/u, '');
    const label = text ? `[${key}] ${text}` : key.length > 1 ? `[${key}]` : undefined;
    if (!label) continue;
    const lineStart = body.lastIndexOf('\n', m.index) + 1;
    const opensLine = /^\s*(?:[-*+]\s+|\d+[.)]\s+)?[`*_\s]*$/u.test(body.slice(lineStart, m.index));
    const into = opensLine ? items : mentioned;
    if (!into.has(key)) into.set(key, label);
  }
  for (const [key, label] of mentioned) if (!items.has(key)) items.set(key, label);
  return items;
}

function shorten(label: string): string {
  return label.length <= MAX_LABEL ? label : `${label.slice(0, MAX_LABEL - 1).trimEnd()}…`;
}

/** The label a line gives its link, if it says anything: a condition (`If lastStep = 1 →`, `IF C:`, `If 'C' (Continue):`) or a menu choice. */
function ownLabel(line: string, menu: ReadonlyMap<string, string>): string | undefined {
  const condition = /\bif\s+(.+?)\s*(?::|→|->|,\s*then\b)/iu.exec(clean(line))?.[1];
  if (condition) {
    const key = new RegExp(String.raw`^['"\[]?(${MENU_KEY})['"\]]?(?=$|[\s(,])`, 'u').exec(condition)?.[1];
    if (key && menu.has(key)) return shorten(menu.get(key)!);
    // `- **IF E (Edit):** load {editStepFile}` names its menu item itself.
    const named = new RegExp(String.raw`^['"\[]?(${MENU_KEY})['"\]]?\s*\(([^)]+)\)$`, 'u').exec(condition);
    if (named) return shorten(`[${named[1]}] ${named[2]!.trim()}`);
    return shorten(condition);
  }
  const choice = new RegExp(String.raw`\[(${MENU_KEY})\]`, 'u').exec(line)?.[1];
  if (choice && menu.has(choice)) return shorten(menu.get(choice)!);
  return undefined;
}

/** The most a caption between a condition and its link may say (after markup is dropped). */
const MAX_CAPTION = 40;

/**
 * A caption: a short line that names what follows (`**Continuation Protocol:**`, `Then:`), wholly
 * emphasised or ending in a colon. Never a heading (that starts another section) nor a sentence.
 */
function isCaption(line: string): boolean {
  if (/^\s*#/u.test(line)) return false;
  const text = clean(line);
  if (!text || text.length > MAX_CAPTION) return false;
  return /^\s*(?:\*\*|__)[^*_]+(?:\*\*|__)\s*:?\s*$/u.test(line) || /:$/u.test(text);
}

/** A condition line: `If the document exists …:`, `#### If 'C' (Continue):`, or a bold `**IF Edit Mode**` alone on its line. */
function conditionLine(line: string): string | undefined {
  const text = clean(line.replace(/^\s*#+\s*/u, ''));
  if (!/\bif\b/iu.test(text)) return undefined;
  if (/(?::|→|->)$/u.test(text)) return line.replace(/^\s*#+\s*/u, '');
  // `**IF Edit Mode**` says its condition without a colon: the bold line is the whole condition.
  if (/^if\s/iu.test(text) && /^\s*(?:\*\*|__)[^*_]+(?:\*\*|__)\s*$/u.test(line)) return `${text}:`;
  return undefined;
}

/**
 * Real BMAD steps often put the condition above the link: "If the document exists …:" then a list
 * item "- STOP and load `./step-01b-continue.md`", or a heading "#### If 'C' (Continue):" over the
 * list that loads the next step. Walks back over list items and blank lines to that line; one short
 * caption between them (`**Continuation Protocol:**`, as the public product-brief init step has) is
 * passed over. Anything else (a heading, a sentence, a second caption) ends the walk without a label.
 */
function conditionAbove(lines: readonly string[], index: number, menu: ReadonlyMap<string, string>): string | undefined {
  let captionPassed = false;
  for (let i = index - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.trim() || /^\s*(?:[-*+]|\d+\.)\s/u.test(line)) continue;
    const condition = conditionLine(line);
    if (condition !== undefined) return ownLabel(condition, menu);
    if (captionPassed || !isCaption(line)) return undefined;
    captionPassed = true;
  }
  return undefined;
}

const EXIT_WORDS = /\b(?:exit|quit|stop|end (?:the )?(?:workflow|session))\b/iu;

/** The menu choice that ends the workflow without loading a step (`[X] Exit`), as an edge label. */
export function exitOption(step: StepText): string | undefined {
  for (const [key, label] of menuItems(step.body)) if (EXIT_WORDS.test(label.slice(key.length + 2))) return label;
  return undefined;
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
    if (typeof value === 'string' && /\.md\s*$/iu.test(value) && !/^\{[^}]*(artifacts|output|folder)[^}]*\}/iu.test(value)) keys.set(key, value.trim());
  }
  const add = (target: string, line: number, label: string, key?: string) => {
    if (!links.has(target)) links.set(target, { target, label, line, ...(key ? { key } : {}) });
  };
  lines.forEach((text, i) => {
    const line = i + step.bodyStartLine;
    const label = (fallback: string) => ownLabel(text, menu) ?? conditionAbove(lines, i, menu) ?? fallback;
    for (const [key, target] of keys) {
      if (text.includes(`{${key}}`)) add(target, line, label(keyLabel(key)), key);
    }
    for (const m of text.matchAll(MD_TOKEN)) {
      // Every .md path: derive keeps those that resolve to a step file (names in any script count).
      const token = m[0];
      // A glob (`{planning_artifacts}/*prd*/index.md`, `**` then `/project-context.md`) names no one file.
      if (/[*?]/u.test(text[m.index - 1] ?? '')) continue;
      const key = [...keys].find(([, target]) => target === token)?.[0];
      add(token, line, label(key ? keyLabel(key) : 'next'), key);
    }
  });
  // Frontmatter links the body never mentions still say where the step goes.
  for (const [key, target] of keys) add(target, step.bodyStartLine, keyLabel(key), key);
  return [...links.values()];
}
