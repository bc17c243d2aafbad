/**
 * Steps written inline in one file, the older BMAD v6 form: `<workflow>` … `<step n="1" goal="…">`
 * … `</step>` … in workflow.md, or in the instructions.md (.xml) a legacy workflow.yaml names.
 * Import makes each `<step>` a step of its own (node id `step-<n>`, title from `goal`, the steps
 * chained in the order written, `<goto step="3">` an extra edge) and leaves a marker in its place
 * in the workflow text; export puts each step file's text back at its marker, so an unchanged
 * workflow comes back byte for byte.
 */

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
  /** `<goto step="3">`, with the `<check if="…">` around it as the label. */
  gotos: Array<{ step: string; label: string; line: number }>;
}

const STEP_TAG = /^[ \t]*(<step\b([^>]*)>[\s\S]*?<\/step>)/gmu;
const ATTRIBUTE = /([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gu;
const GOTO = /<goto\b[^>]*?\bstep\s*=\s*["']([^"']+)["'][^>]*>/gu;
const CHECK = /<check\b[^>]*?\bif\s*=\s*["']([^"']+)["'][^>]*>/gu;
const MARKER = /<!-- crewagent:inline-step (\S+) [^>]*?-->/gu;

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(ATTRIBUTE)) out[m[1]!] = (m[2] ?? m[3] ?? '').trim();
  return out;
}

/** The label of a goto: the condition of the `<check if>` still open where it stands. */
function gotoLabel(text: string, at: number, step: string): string {
  let label = `goto step ${step}`;
  for (const m of text.slice(0, at).matchAll(CHECK)) {
    if (!text.slice(m.index + m[0].length, at).includes('</check>')) label = m[1]!;
  }
  return label.length <= 60 ? label : `${label.slice(0, 59).trimEnd()}…`;
}

/** The `<step>` blocks of a workflow text, in the order written; none when it has no `<step n=…>`. */
export function findInlineSteps(text: string): InlineStep[] {
  const steps: InlineStep[] = [];
  for (const m of text.matchAll(STEP_TAG)) {
    const start = m.index + m[0].length - m[1]!.length;
    const body = m[1]!;
    const attrs = attributes(m[2]!);
    const gotos = [...body.matchAll(GOTO)].map((g) => ({
      step: g[1]!.trim(),
      label: gotoLabel(body, g.index, g[1]!.trim()),
      line: text.slice(0, start + g.index).split('\n').length,
    }));
    steps.push({ n: attrs.n || String(steps.length + 1), ...(attrs.goal ? { goal: attrs.goal } : {}), ...(attrs.name ? { name: attrs.name } : {}), start, end: start + body.length, text: body, gotos });
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
