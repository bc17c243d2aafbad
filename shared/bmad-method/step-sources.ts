/**
 * The steps of one workflow folder, before they are a graph: which uploaded files are step files
 * (`step-*.md` anywhere, any `.md` in a `steps*` folder, whatever script its name is in), their
 * text (duplicate and invalid frontmatter lines set aside, with warnings), the links between them,
 * their node ids and package paths (a name outside ASCII gets `step-<hash8>`, as assets do), and
 * the steps a workflow text holds inline (`<step n="1" goal="…">`, inline-steps.ts).
 */
import { warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import { ID_PATTERN } from '../bmad/formats.ts';
import { hash8 } from './ascii-assets.ts';
import type { SourceEdge, StepSource } from './build-graph.ts';
import { setAsideDuplicateKeys, setAsideFrontmatter } from './generated.ts';
import { findInlineSteps } from './inline-steps.ts';
import { readStepText, stepLinks, type StepText } from './links.ts';
import { resolveTarget, type ResolveContext } from './resolve.ts';
import { baseOf, type Candidate } from './workflow-files.ts';

// `.md` in any letter case (`step-01.MD`): the same Markdown file.
const STEP_FILE = /^step[A-Za-z0-9._-]*\.md$/iu;
/** A `.md` directly inside a folder named like `steps`, `steps-c`, `domain-steps`. */
const IN_STEPS_FOLDER = /(?:^|\/)[^/]*steps[^/]*\/[^/]+\.md$/iu;
const ASCII_PATH = /^[A-Za-z0-9._/-]+$/u;

export function isStepFile(path: string): boolean {
  return STEP_FILE.test(baseOf(path)) || IN_STEPS_FOLDER.test(path);
}

export function toId(raw: string, taken: Set<string>): string {
  let base = raw.replace(/[^A-Za-z0-9._:-]+/gu, '-').replace(/^[^A-Za-z0-9]+/u, '') || 'workflow';
  if (!ID_PATTERN.test(base)) base = 'workflow';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** Step texts by path, frontmatter lines that would break the package set aside (each with a warning). */
export function readSteps(paths: readonly string[], files: ReadonlyMap<string, string>, issues: ValidationIssue[]): Map<string, StepText> {
  const texts = new Map<string, StepText>();
  for (const p of paths) {
    const { text, duplicates } = setAsideDuplicateKeys(files.get(p)!);
    for (const d of duplicates) {
      issues.push(
        warningIssue('BMAD_FRONTMATTER_DUPLICATE_KEY', p, `The frontmatter names "${d.key}" more than once (line ${d.line}); the last one counts, and the earlier line is kept as a comment until export.`, {
          hint: 'Delete one of the two lines.',
        }),
      );
    }
    let read = readStepText(text);
    if (!read.frontmatterOk) {
      issues.push(
        warningIssue('BMAD_FRONTMATTER_INVALID', p, `The frontmatter of ${p} is not valid YAML; its frontmatter links were not read, and its lines are kept as comments until export.`, {
          hint: 'Quote values that contain ": " or start with a special character, then import again.',
        }),
      );
      read = { ...readStepText(setAsideFrontmatter(text)), frontmatter: {} };
    }
    texts.set(p, read);
  }
  return texts;
}

/** Each step's links to other step files of the folder, in order of first use (warnings for broken ones). */
export function linkEdges(texts: ReadonlyMap<string, StepText>, ctx: ResolveContext, issues: ValidationIssue[]): Map<string, SourceEdge[]> {
  const edgesOf = new Map<string, SourceEdge[]>();
  for (const [path, text] of texts) {
    const out: SourceEdge[] = [];
    const own = { ...ctx, vars: { ...ctx.vars, ...text.frontmatter } };
    for (const link of stepLinks(text)) {
      const resolved = resolveTarget(path, link.target, own);
      if (resolved.kind === 'file') {
        if (!ctx.steps.has(resolved.path)) continue; // a template or data file, not a step
        if (resolved.path === path || out.some((e) => e.to === resolved.path)) continue;
        out.push({ to: resolved.path, label: link.label, line: link.line, ...(link.key ? { key: link.key } : {}) });
      } else if (resolved.kind === 'outside') {
        issues.push(warningIssue('BMAD_LINK_OUTSIDE', path, `Line ${link.line} links "${link.target}", which leaves the uploaded folder; the link was ignored.`));
      } else if (resolved.kind === 'missing' && (STEP_FILE.test(baseOf(link.target)) || /step/iu.test(link.key ?? ''))) {
        issues.push(
          warningIssue('BMAD_LINK_MISSING', path, `Line ${link.line} links "${link.target}", but there is no such step file; the link was ignored.`, {
            hint: 'Add the missing step file, or fix the link.',
          }),
        );
      }
    }
    edgesOf.set(path, out);
  }
  return edgesOf;
}

/** The step files a workflow text names, in order of first use, with the label of the line that names each. */
export function workflowLinks(candidate: Candidate, ctx: ResolveContext): Array<{ to: string; label: string; line: number; route: boolean }> {
  const out: Array<{ to: string; label: string; line: number; route: boolean }> = [];
  for (const link of stepLinks(candidate.text)) {
    const resolved = resolveTarget(candidate.path, link.target, { ...ctx, vars: { ...ctx.vars, ...candidate.vars } });
    if (resolved.kind === 'file' && ctx.steps.has(resolved.path) && !out.some((o) => o.to === resolved.path)) {
      // A route: the line (or the one above it) gives a condition or a menu choice, not the fallback label.
      out.push({ to: resolved.path, label: link.label, line: link.line, route: link.label !== 'next' && link.label !== link.key });
    }
  }
  return out;
}

/** The entry decision the import writes for a workflow text with several routes (`IF Create Mode:` … `IF Edit Mode:` …). */
export function routerSource(id: string, candidate: Candidate, routes: ReadonlyArray<{ label: string; nodeId: string }>, taken: ReadonlySet<string>): StepSource {
  let nodeId = 'route';
  for (let n = 2; taken.has(nodeId); n++) nodeId = `route-${n}`;
  const body = [
    '# Choose the route',
    '',
    '## Goal',
    '',
    `Take the route ${baseOf(candidate.path)} describes for this run.`,
    '',
    '## Instructions',
    '',
    `- Read the routing part of ${baseOf(candidate.path)} and follow the route that applies:`,
    ...routes.map((r) => `  - ${r.label}: ${r.nodeId}`),
    '',
  ].join('\n');
  return { key: `${candidate.path}#${nodeId}`, nodeId, storedPath: `workflows/${id}/steps/${nodeId}.md`, text: readStepText(body), body, extra: { exportAs: 'none' }, title: 'Choose the route' };
}

/**
 * Uploaded step files as sources of workflow `id`: node id from the file name, package path from
 * the path in the folder; a name outside ASCII gets `step-<hash8>` for both (warning).
 */
export function fileSources(id: string, dir: string, order: readonly string[], texts: ReadonlyMap<string, StepText>, issues: ValidationIssue[]): { sources: StepSource[]; renamed: Record<string, string> } {
  const taken = new Set<string>();
  const renamed: Record<string, string> = {};
  const sources = order.map((path) => {
    const rel = path.slice(dir.length);
    const stem = baseOf(path).replace(/\.md$/iu, '');
    const ascii = ASCII_PATH.test(rel);
    const nodeId = toId(ascii ? stem : `step-${hash8(path)}`, taken);
    const storedRel = ascii ? rel : `${rel.includes('/') && ASCII_PATH.test(rel.slice(0, rel.lastIndexOf('/'))) ? rel.slice(0, rel.lastIndexOf('/') + 1) : 'steps/'}${nodeId}.md`;
    if (!ascii) {
      renamed[storedRel] = rel;
      issues.push(
        warningIssue('BMAD_STEP_RENAMED', path, `${path} has a name outside the ASCII path characters; its step is node "${nodeId}", stored as workflows/${id}/${storedRel}. Export writes it back under its own name.`, {
          params: { from: path, to: `workflows/${id}/${storedRel}` },
          hint: 'Give the node a title in the editor if you want a readable name on the canvas.',
        }),
      );
    }
    const text = texts.get(path)!;
    return { key: path, nodeId, storedPath: `workflows/${id}/${storedRel}`, text, body: text.raw, ...(text.title ? { title: text.title } : {}) };
  });
  return { sources, renamed };
}

/**
 * The steps a workflow text holds inline: one source per `<step n=…>` (chained in the order
 * written unless a step exits or jumps away, `<goto step=…>` and "Jump to Step N" extra edges
 * labelled by their `<check if>`, the last step ending on an edge of its own when it has gotos), or,
 * with no `<step>` at all, one source holding the whole body. Null when the body is empty.
 */
export function inlineSources(id: string, candidate: Candidate): { sources: StepSource[]; edgesOf: Map<string, SourceEdge[]>; endAfter: Map<string, string>; workflowSteps: Array<{ start: number; end: number; nodeId: string }>; whole: boolean } | null {
  const raw = candidate.text.raw;
  let blocks = findInlineSteps(raw).map((b) => ({ ...b, title: b.goal ?? b.name }));
  const whole = blocks.length === 0;
  if (whole) {
    const start = raw.length - candidate.text.body.length;
    if (!candidate.text.body.trim()) return null;
    blocks = [{ n: '1', start, end: raw.length, text: raw.slice(start), gotos: [], title: candidate.text.title ?? candidate.name }];
  }
  const taken = new Set<string>();
  const sources: StepSource[] = blocks.map((b) => {
    const nodeId = toId(`step-${b.n}`, taken);
    return {
      key: `${candidate.path}#${nodeId}`,
      nodeId,
      storedPath: `workflows/${id}/steps/${nodeId}.md`,
      text: readStepText(b.text),
      body: b.text,
      extra: { exportAs: 'inline' },
      ...(b.title ? { title: b.title } : {}),
    };
  });
  const edgesOf = new Map<string, SourceEdge[]>();
  const endAfter = new Map<string, string>();
  const indexOf = (step: string) => blocks.findIndex((x) => x.n === step);
  // Steps an earlier step jumps forward to, over others (sprint-status: step 0 → 20 and 30 by mode).
  const jumpedTo = new Map<number, number>();
  blocks.forEach((b, i) => {
    for (const g of b.gotos) {
      const target = indexOf(g.step);
      if (target > i + 1 && !jumpedTo.has(target)) jumpedTo.set(target, i);
    }
  });
  blocks.forEach((b, i) => {
    const out: SourceEdge[] = [];
    const line = raw.slice(0, b.start).split('\n').length;
    const toNext = b.gotos.find((g) => indexOf(g.step) === i + 1);
    // Written order is the way on, unless the step leaves it: an exit or a jump outside any <check>,
    // or an exit it offers right before a step that only an earlier step's jump reaches.
    const leaves =
      b.exits === 'always' ||
      b.gotos.some((g) => !g.conditional && indexOf(g.step) !== i + 1) ||
      (b.exits === 'maybe' && !toNext && (jumpedTo.get(i + 1) ?? i) < i);
    if (i + 1 < sources.length && (!leaves || toNext)) out.push({ to: sources[i + 1]!.key, label: toNext?.conditional ? toNext.label : 'next', key: 'nextStepFile', line });
    for (const g of b.gotos) {
      const target = indexOf(g.step);
      if (target < 0 || target === i || out.some((e) => e.to === sources[target]!.key)) continue;
      out.push({ to: sources[target]!.key, label: g.label, line: g.line });
    }
    edgesOf.set(sources[i]!.key, out);
  });
  // A step left with no way in would be a second start (refused): it keeps its chain from the step before.
  sources.forEach((source, j) => {
    if (j === 0 || [...edgesOf.values()].some((out) => out.some((e) => e.to === source.key))) return;
    const line = raw.slice(0, blocks[j - 1]!.start).split('\n').length;
    edgesOf.get(sources[j - 1]!.key)!.unshift({ to: source.key, label: 'next', key: 'nextStepFile', line });
  });
  sources.forEach((source, i) => {
    if (i + 1 === sources.length && edgesOf.get(source.key)!.length > 0) endAfter.set(source.key, 'done');
  });
  return { sources, edgesOf, endAfter, workflowSteps: blocks.map((b, i) => ({ start: b.start, end: b.end, nodeId: sources[i]!.nodeId })), whole };
}
