/**
 * A step file's frontmatter `transitions` kept in step with its node's outgoing graph edges: what
 * the list should be, whether a file already agrees, and the file rewritten so it does. The
 * rewrite replaces only the `transitions` entry of the YAML (or appends one); every other byte of
 * the file stays as it was, so a canvas edit never reformats what the author wrote.
 */
import { isMap, isScalar, parseDocument, stringify } from 'yaml';
import { parseFrontmatter } from './frontmatter.ts';
import type { StepTransition } from './models.ts';

/** An edge as the graph file holds it; loose, since callers may hold a graph that is not yet checked. */
export interface EdgeLike {
  from?: unknown;
  to?: unknown;
  label?: unknown;
  isDefault?: unknown;
  conditionText?: unknown;
}

/** The transitions a step should list: the outgoing edges of `nodeId`, in graph order. */
export function transitionsFromEdges(edges: readonly EdgeLike[], nodeId: string): StepTransition[] {
  return edges
    .filter((e) => e.from === nodeId && typeof e.to === 'string')
    .map((e) => ({
      to: e.to as string,
      label: typeof e.label === 'string' ? e.label : '',
      ...(e.isDefault === true ? { isDefault: true } : {}),
      ...(typeof e.conditionText === 'string' ? { conditionText: e.conditionText } : {}),
    }));
}

/**
 * One comparable string per transition. The only way out of a step is its default whether or not
 * it is flagged, so a lone transition matches a lone edge with or without `isDefault`.
 */
function canonical(list: readonly StepTransition[]): string[] {
  return list
    .map((t) => JSON.stringify([t.to, t.label, list.length === 1 || t.isDefault === true, t.conditionText ?? null]))
    .sort();
}

function asTransitions(value: unknown): StepTransition[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return null;
  const list: StepTransition[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) return null;
    const t = item as Record<string, unknown>;
    if (typeof t.to !== 'string' || typeof t.label !== 'string') return null;
    if (t.isDefault !== undefined && typeof t.isDefault !== 'boolean') return null;
    if (t.conditionText !== undefined && typeof t.conditionText !== 'string') return null;
    list.push({
      to: t.to,
      label: t.label,
      ...(t.isDefault === true ? { isDefault: true } : {}),
      ...(t.conditionText !== undefined ? { conditionText: t.conditionText } : {}),
    });
  }
  return list;
}

/** Whether a frontmatter `transitions` value (absent counts as none) lists exactly `expected`, in any order. */
export function transitionsAgree(listed: unknown, expected: readonly StepTransition[]): boolean {
  const actual = asTransitions(listed);
  if (actual === null) return false;
  const a = canonical(actual);
  const b = canonical(expected);
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** Whether the step file's transitions agree with `expected`; null when its frontmatter does not parse. */
export function stepTransitionsAgree(markdown: string, expected: readonly StepTransition[]): boolean | null {
  const parsed = parseFrontmatter(markdown);
  if (!parsed.ok) return null;
  return transitionsAgree(parsed.value.data.transitions, expected);
}

/** The `transitions:` entry as YAML lines, in the style of the step templates. */
function transitionsYaml(list: readonly StepTransition[], eol: string): string {
  const text = stringify({ transitions: list }, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
  return eol === '\n' ? text : text.replaceAll('\n', eol);
}

/**
 * The step file with its frontmatter `transitions` set to `list`, or null when the frontmatter
 * does not parse (nothing to edit safely). Only the `transitions` entry changes: it is replaced in
 * place, or appended as the last key when the file has none.
 */
export function withTransitions(markdown: string, list: readonly StepTransition[]): string | null {
  const parsed = parseFrontmatter(markdown);
  if (!parsed.ok) return null;
  const { yaml, eol } = parsed.value;
  // The YAML starts on the line after the opening fence; a BOM holds no newline.
  const yamlStart = markdown.indexOf('\n') + 1;
  const before = markdown.slice(0, yamlStart);
  const after = markdown.slice(yamlStart + yaml.length);
  const block = transitionsYaml(list, eol);
  const doc = parseDocument(yaml);
  const contents = doc.contents;
  const pair = isMap(contents) ? contents.items.find((p) => isScalar(p.key) && p.key.value === 'transitions') : undefined;
  if (!pair) {
    const lead = yaml === '' || yaml.endsWith('\n') ? '' : eol;
    return before + yaml + lead + block + after;
  }
  const keyRange = isScalar(pair.key) ? pair.key.range : undefined;
  const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
  const start = keyRange?.[0];
  // Only a top-level key at the start of its line can be cut out as whole lines.
  if (start === undefined || (start > 0 && yaml[start - 1] !== '\n')) return null;
  let end = valueRange?.[2] ?? keyRange![2];
  if (end > 0 && yaml[end - 1] !== '\n') {
    const newline = yaml.indexOf('\n', end);
    end = newline === -1 ? yaml.length : newline + 1;
  }
  // The YAML between the fences always ends with a line break, so whole lines go in and out.
  return before + yaml.slice(0, start) + block + yaml.slice(end) + after;
}

/**
 * `expected` written the way the file already lists it, so an edit changes only what it was asked
 * to: transitions the file lists keep their place in its order (new ones after them, in graph
 * order), and a file's lone transition that stays the lone one, to the same step, keeps its
 * `isDefault: true` (the only way out is the default either way, and the graph need not flag a
 * lone edge), so relabelling an edge does not drop it.
 */
function keepAuthorsForm(listed: unknown, expected: readonly StepTransition[]): StepTransition[] {
  const old = asTransitions(listed) ?? [];
  const used = new Set<number>();
  const matched = expected.map((t) => {
    const at = old.findIndex((o, i) => !used.has(i) && o.to === t.to);
    if (at !== -1) used.add(at);
    return { t, at };
  });
  // The author's flag on the one way out, kept while it stays the one way out to the same step.
  const lone = expected.length === 1 && old.length === 1 && matched[0]!.at === 0 && old[0]!.isDefault === true;
  const kept = matched.map(({ t }) => (lone && t.isDefault !== true ? { ...t, isDefault: true } : t));
  const order = matched.map(({ at }, i) => ({ i, key: at === -1 ? old.length + i : at }));
  return order.sort((a, b) => a.key - b.key).map(({ i }) => kept[i]!);
}

/** The step file agreeing with `expected`: unchanged when it already does, rewritten otherwise, null when unreadable. */
export function syncStepTransitions(markdown: string, expected: readonly StepTransition[]): string | null {
  const parsed = parseFrontmatter(markdown);
  if (!parsed.ok) return null;
  const listed = parsed.value.data.transitions;
  return transitionsAgree(listed, expected) ? markdown : withTransitions(markdown, keepAuthorsForm(listed, expected));
}
