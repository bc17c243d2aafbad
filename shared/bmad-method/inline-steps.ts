/**
 * Steps written inline in one file, the older BMAD v6 form: `<workflow>` … `<step n="1" goal="…">`
 * … `</step>` … in workflow.md, or in the instructions.md (.xml) a legacy workflow.yaml names.
 * Import makes each `<step>` a step of its own (node id `step-<n>`, title from `goal`, the steps
 * chained in the order written, `<goto step="3">` and written jumps ("Jump to Step 20") extra
 * edges, `<step>` blocks in fenced code examples left alone) and leaves a marker in its place
 * in the workflow text; export puts each step file's text back at its marker, so an unchanged
 * workflow comes back byte for byte.
 */

export interface InlineJump {
  step: string;
  /** The condition of the `<check if>` around it, else `goto step <n>`. */
  label: string;
  line: number;
  /** Inside a `<check>`: taken only when its condition holds. */
  conditional: boolean;
}

export interface InlineStep {
  /** The `n` attribute (`1`, `0.5`, `2a`), or the step's position when it has none. */
  n: string;
  goal?: string;
  /** The `name` attribute (`<step name="load_story">`, later BMAD pipelines), a title when there is no goal. */
  name?: string;
  /** Offsets of `<step …>` … `</step>` in the text. */
  start: number;
  end: number;
  text: string;
  /** `<goto step="3">` and the written forms ("Jump to Step 20", "Go to Step 30", "Continue to step 2"), in the order written. */
  gotos: InlineJump[];
  /** "Exit workflow", "Return to caller" (`<action>Return</action>`): outside any `<check>` (`always`), or only inside one (`maybe`). */
  exits?: 'always' | 'maybe';
}

const STEP_TAG = /^[ \t]*(<step\b([^>]*)>[\s\S]*?<\/step>)/gmu;
const ATTRIBUTE = /([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gu;
const GOTO = /<goto\b[^>]*?\bstep\s*=\s*["']([^"']+)["'][^>]*>/gu;
/** A jump written in words, as real BMAD workflows do inside `<action>` ("Jump to Step 20", "Go to Step 30", "Continue to step 2"). */
const WRITTEN_JUMP = /\b(?:jump|go|goto|skip|continue|proceed|return|loop(?:\s+back)?)\s+(?:back\s+)?(?:directly\s+)?to\s+step\s+(\d+(?:\.\d+)?[a-z]?)\b/giu;
/** Where a run stops: "Exit workflow", "End the workflow", "Return to caller", a bare `<action>Return</action>`. */
const EXIT = /\b(?:exit|end|stop|halt)\s+(?:the\s+)?workflow\b|\breturn\s+to\s+(?:the\s+)?caller\b|<action>\s*return\s*<\/action>/iu;
const CHECK = /<check\b[^>]*?\bif\s*=\s*["']([^"']+)["'][^>]*>/gu;
const CHECK_TAG = /<(\/?)check\b[^>]*>/gu;
const MARKER = /<!-- crewagent:inline-step (\S+) [^>]*?-->/gu;
/** A fence line of Markdown: up to three spaces, then ``` or ~~~ (three or more). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/u;

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(ATTRIBUTE)) out[m[1]!] = (m[2] ?? m[3] ?? '').trim();
  return out;
}

/**
 * Offsets `[start, end)` of the fenced code blocks of a Markdown text: what they hold is an
 * example (a `<step>` written to show the format), never a step or a jump. An unclosed fence runs
 * to the end of the text, as Markdown reads it.
 */
export function fencedRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let open: { start: number; fence: string } | null = null;
  let at = 0;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (open === null && fence) open = { start: at, fence };
    else if (open !== null && fence && fence[0] === open.fence[0] && fence.length >= open.fence.length && line.trim() === fence) {
      ranges.push([open.start, at + line.length]);
      open = null;
    }
    at += line.length + 1;
  }
  if (open !== null) ranges.push([open.start, text.length]);
  return ranges;
}

/** `text` with its fenced code blocks blanked (same length, line breaks kept), so offsets still match the text. */
export function maskFences(text: string): string {
  let out = text;
  for (const [a, b] of fencedRanges(text)) out = out.slice(0, a) + out.slice(a, b).replace(/[^\n]/gu, ' ') + out.slice(b);
  return out;
}

/** The condition of the `<check if>` still open at `at`, if any. */
function openCheck(text: string, at: number): string | undefined {
  let label: string | undefined;
  for (const m of text.slice(0, at).matchAll(CHECK)) {
    if (!text.slice(m.index + m[0].length, at).includes('</check>')) label = m[1]!;
  }
  return label;
}

/** How many `<check>` are open at `at` (nested checks count each). */
function checkDepth(text: string, at: number): number {
  let depth = 0;
  for (const m of text.slice(0, at).matchAll(CHECK_TAG)) depth = Math.max(0, depth + (m[1] ? -1 : 1));
  return depth;
}

/** The label of a jump: the condition of the `<check if>` still open where it stands. */
function gotoLabel(text: string, at: number, step: string): string {
  const label = openCheck(text, at) ?? `goto step ${step}`;
  return label.length <= 60 ? label : `${label.slice(0, 59).trimEnd()}…`;
}

/** A step's jumps (`<goto>` and written ones) outside its fenced examples, in the order written. */
function jumpsOf(body: string, lineAt: (offset: number) => number): InlineJump[] {
  const plain = maskFences(body);
  const found = [...plain.matchAll(GOTO), ...plain.matchAll(WRITTEN_JUMP)].sort((a, b) => a.index - b.index);
  return found.map((g) => ({
    step: g[1]!.trim(),
    label: gotoLabel(plain, g.index, g[1]!.trim()),
    line: lineAt(g.index),
    conditional: checkDepth(plain, g.index) > 0,
  }));
}

function exitsOf(body: string): InlineStep['exits'] {
  const plain = maskFences(body);
  let exits: InlineStep['exits'];
  for (const m of plain.matchAll(new RegExp(EXIT.source, 'giu'))) {
    if (checkDepth(plain, m.index) === 0) return 'always';
    exits = 'maybe';
  }
  return exits;
}

/** The `<step>` blocks of a workflow text, in the order written, fenced examples left out; none when it has no `<step n=…>`. */
export function findInlineSteps(text: string): InlineStep[] {
  const steps: InlineStep[] = [];
  // Matched in the text with its fences blanked: an example `<step>` (or `</step>`) in a code block is not one.
  for (const m of maskFences(text).matchAll(STEP_TAG)) {
    const start = m.index + m[0].length - m[1]!.length;
    const body = text.slice(start, start + m[1]!.length);
    const attrs = attributes(m[2]!);
    const gotos = jumpsOf(body, (offset) => text.slice(0, start + offset).split('\n').length);
    const exits = exitsOf(body);
    steps.push({
      n: attrs.n || String(steps.length + 1),
      ...(attrs.goal ? { goal: attrs.goal } : {}),
      ...(attrs.name ? { name: attrs.name } : {}),
      start,
      end: start + body.length,
      text: body,
      gotos,
      ...(exits ? { exits } : {}),
    });
  }
  return steps;
}

export function inlineMarker(nodeId: string): string {
  return `<!-- crewagent:inline-step ${nodeId} (this step's text is in its step file; export to BMAD-METHOD puts it back here) -->`;
}

/** `text` with each step's block replaced by its marker. */
export function withMarkers(text: string, steps: ReadonlyArray<{ start: number; end: number; nodeId: string }>): string {
  let out = '';
  let at = 0;
  for (const s of [...steps].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, s.start) + inlineMarker(s.nodeId);
    at = s.end;
  }
  return out + text.slice(at);
}

/** The workflow text with each marker replaced by its step's text; `missing`: markers whose step is gone. */
export function spliceInlineSteps(text: string, textOf: (nodeId: string) => string | undefined): { text: string; used: string[]; missing: string[] } {
  const used: string[] = [];
  const missing: string[] = [];
  const out = text.replace(MARKER, (whole, nodeId: string) => {
    const step = textOf(nodeId);
    if (step === undefined) {
      missing.push(nodeId);
      return whole;
    }
    used.push(nodeId);
    return step;
  });
  return { text: out, used, missing };
}
