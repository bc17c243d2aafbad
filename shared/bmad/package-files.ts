/**
 * Converts between a flat file map (what a .bmad zip holds, paths from its root) and BmadPackage.
 * Import reads both layouts: single-workflow (root workflow.md; workflow id "main") and
 * multi-workflow (bmad.json `workflows[]`, files under workflows/<id>/). Export always writes the
 * multi-workflow layout with a bmad.json derived from the package, so export(import(p)) keeps
 * every workflow, node, edge and agent id.
 */
import { BmadManifest } from './models.ts';
import type { ManifestWorkflow } from './models.ts';
import { DEFAULT_AGENTS_PATH, MANIFEST_PATH, SINGLE_WORKFLOW_ID } from './package.ts';
import type { BmadPackage, BmadStepFile, BmadWorkflow } from './package.ts';
import { baseName, dirOf, resolveLink } from './paths.ts';
import { numberedPath, portablePath, portableSegment } from './portable-names.ts';
import { jsonNestsDeeper } from '../json-depth.ts';
import { eolOf, jsonFileText } from './json-text.ts';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The parsed text, or undefined when it is not JSON or nests too deep to walk (canonicalJson and the relayout recurse). */
function tryJson(text: string | null | undefined): unknown {
  if (text === null || text === undefined || jsonNestsDeeper(text)) return undefined;
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    return undefined;
  }
}

interface WorkflowRef {
  id: string;
  workflowMdPath: string;
  graphPath: string;
  displayName?: string;
  description?: string;
  tags?: string[];
}

const MULTI_WORKFLOW_MD = /^workflows\/([^/]+)\/workflow\.md$/u;

function workflowRefs(files: ReadonlyMap<string, string>, manifest: Json, entry: Json): WorkflowRef[] {
  const listed = Array.isArray(manifest.workflows) ? manifest.workflows : [];
  if (listed.length > 0) {
    return listed.map((raw, i): WorkflowRef => {
      const item = isRecord(raw) ? raw : {};
      const id = str(item.id) ?? `workflow-${i + 1}`;
      const ref: WorkflowRef = {
        id,
        workflowMdPath: str(item.workflow) ?? `workflows/${id}/workflow.md`,
        graphPath: str(item.graph) ?? `workflows/${id}/workflow.graph.json`,
      };
      if (typeof item.displayName === 'string') ref.displayName = item.displayName;
      if (typeof item.description === 'string') ref.description = item.description;
      if (Array.isArray(item.tags) && item.tags.every((t) => typeof t === 'string')) ref.tags = [...(item.tags as string[])];
      return ref;
    });
  }
  const entryWorkflow = str(entry.workflow);
  if (entryWorkflow !== undefined || files.has('workflow.md')) {
    const workflowMdPath = entryWorkflow ?? 'workflow.md';
    return [
      {
        id: MULTI_WORKFLOW_MD.exec(workflowMdPath)?.[1] ?? SINGLE_WORKFLOW_ID,
        workflowMdPath,
        graphPath: str(entry.graph) ?? `${dirOf(workflowMdPath)}workflow.graph.json`,
      },
    ];
  }
  const found = [...files.keys()]
    .map((path) => MULTI_WORKFLOW_MD.exec(path)?.[1])
    .filter((id): id is string => id !== undefined)
    .sort();
  if (found.length === 0) return [{ id: SINGLE_WORKFLOW_ID, workflowMdPath: 'workflow.md', graphPath: 'workflow.graph.json' }];
  return found.map((id) => ({ id, workflowMdPath: `workflows/${id}/workflow.md`, graphPath: `workflows/${id}/workflow.graph.json` }));
}

/** Step files of a workflow: its graph's node files in node order, then other .md files in its steps/ folder. */
function stepFiles(files: ReadonlyMap<string, string>, ref: WorkflowRef, graphJson: string | null): BmadStepFile[] {
  const graph = tryJson(graphJson);
  const nodes = isRecord(graph) && Array.isArray(graph.nodes) ? graph.nodes.filter(isRecord) : [];
  const steps = new Map<string, BmadStepFile>();
  for (const node of nodes) {
    const file = str(node.file);
    if (file === undefined || steps.has(file)) continue;
    const markdown = files.get(file);
    if (markdown === undefined) continue;
    const step: BmadStepFile = { path: file, markdown };
    if (typeof node.id === 'string') step.nodeId = node.id;
    steps.set(file, step);
  }
  const stepsDir = `${dirOf(ref.workflowMdPath)}steps/`;
  const loose = [...files.keys()].filter(
    (p) => p.startsWith(stepsDir) && /\.md$/iu.test(p) && !p.slice(stepsDir.length).includes('/') && !steps.has(p),
  );
  for (const path of loose.sort()) steps.set(path, { path, markdown: files.get(path)! });
  return [...steps.values()];
}

export function packageFromFiles(files: ReadonlyMap<string, string>): BmadPackage {
  const used = new Set<string>();
  const take = (path: string): string | null => {
    const text = files.get(path);
    if (text === undefined) return null;
    used.add(path);
    return text;
  };
  const manifestJson = take(MANIFEST_PATH);
  const parsed = tryJson(manifestJson);
  const manifest = isRecord(parsed) ? parsed : {};
  const entry = isRecord(manifest.entry) ? manifest.entry : {};
  const agentsPath = str(entry.agents) ?? DEFAULT_AGENTS_PATH;
  const agentsJson = take(agentsPath);

  const refs = workflowRefs(files, manifest, entry);
  const workflows = refs.map((ref): BmadWorkflow => {
    const workflowMd = take(ref.workflowMdPath);
    const graphJson = take(ref.graphPath);
    const steps = stepFiles(files, ref, graphJson);
    for (const s of steps) used.add(s.path);
    return { ...ref, workflowMd, graphJson, steps };
  });

  const pkg: BmadPackage = { manifestJson, agentsJson, workflows, assets: [], otherFiles: [] };
  if (agentsPath !== DEFAULT_AGENTS_PATH) pkg.agentsPath = agentsPath;
  const entryWorkflow = str(entry.workflow);
  const defaultRef = refs.find((r) => r.workflowMdPath === entryWorkflow);
  if (defaultRef) pkg.defaultWorkflowId = defaultRef.id;

  const rest = [...files.keys()].filter((p) => !used.has(p) && !p.endsWith('/')).sort();
  for (const path of rest) {
    const file = { path, content: files.get(path)! };
    if (path.startsWith('assets/')) pkg.assets.push(file);
    else pkg.otherFiles!.push(file);
  }
  return pkg;
}

// ---- export ---------------------------------------------------------------------------------

/** Where a file of a workflow that lived under `fromDir` goes under `toDir`. */
function relocate(path: string, fromDir: string, toDir: string): string {
  if (path.startsWith(fromDir)) return toDir + path.slice(fromDir.length);
  return `${toDir}steps/${baseName(path)}`;
}

/**
 * Markdown links of `text` (a file in `dir`) to a step file that moved to another file name point at
 * the new name: `[Review](steps/review:final.md)` → `[Review](steps/review_final.md)`. Only the file
 * name changes, so a relative link stays relative.
 */
function relinkRenamed(text: string, dir: string, moved: ReadonlyMap<string, string>): string {
  return text.replace(/(\]\(\s*<?)([^)\s>]+)/gu, (whole, open: string, target: string) => {
    const cut = target.search(/[?#]/u);
    const file = cut === -1 ? target : target.slice(0, cut);
    let decoded: string;
    try {
      decoded = decodeURIComponent(file);
    } catch {
      return whole;
    }
    const to = moved.get(resolveLink(dir, decoded) ?? '');
    if (to === undefined) return whole;
    return `${open}${file.slice(0, file.lastIndexOf('/') + 1)}${baseName(to)}${target.slice(file.length)}`;
  });
}

function relayoutWorkflow(workflow: BmadWorkflow, toDir: string, portable: boolean): BmadWorkflow {
  const fromDir = dirOf(workflow.workflowMdPath);
  const place = (path: string) => {
    const at = relocate(path, fromDir, toDir);
    return portable ? toDir + portablePath(at.slice(toDir.length)) : at;
  };
  const moved = new Map<string, string>();
  const taken = new Set<string>();
  // Files that keep their name are placed first, so a renamed one never takes a name already in use.
  const keeps = (s: BmadStepFile) => !portable || place(s.path) === relocate(s.path, fromDir, toDir);
  for (const step of [...workflow.steps.filter(keeps), ...workflow.steps.filter((s) => !keeps(s))]) {
    let target = place(step.path);
    for (let n = 2; taken.has(target); n++) target = numberedPath(place(step.path), n);
    taken.add(target);
    moved.set(step.path, target);
  }
  let graphJson = workflow.graphJson;
  const graph = tryJson(graphJson);
  if (isRecord(graph) && Array.isArray(graph.nodes)) {
    let changed = false;
    for (const node of graph.nodes) {
      if (!isRecord(node) || typeof node.file !== 'string') continue;
      const file = moved.get(node.file) ?? place(node.file);
      if (file !== node.file) {
        node.file = file;
        changed = true;
      }
    }
    if (changed) graphJson = `${JSON.stringify(graph, null, 2)}\n`;
  }
  const renamed = new Map([...moved].filter(([from, to]) => baseName(from) !== baseName(to)));
  const relink = (text: string, path: string) => (renamed.size === 0 ? text : relinkRenamed(text, dirOf(path), renamed));
  return {
    ...workflow,
    workflowMdPath: `${toDir}workflow.md`,
    graphPath: `${toDir}workflow.graph.json`,
    workflowMd: workflow.workflowMd === null ? null : relink(workflow.workflowMd, workflow.workflowMdPath),
    graphJson,
    steps: workflow.steps.map((s) => ({ ...s, path: moved.get(s.path)!, markdown: relink(s.markdown, s.path) })),
  };
}

/** Each workflow's folder, `workflows/<id>/`; with `portable`, a folder name Windows can create (ids may hold ":"), one per workflow. */
function workflowFolders(workflows: readonly BmadWorkflow[], portable: boolean): string[] {
  if (!portable) return workflows.map((w) => `workflows/${w.id}/`);
  const names: Array<string | undefined> = workflows.map((w) => (portableSegment(w.id) === w.id ? w.id : undefined));
  const taken = new Set(names.filter((n): n is string => n !== undefined));
  return workflows.map((w, i) => {
    let name = names[i];
    if (name === undefined) {
      const base = portableSegment(w.id);
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
      taken.add(name);
    }
    return `workflows/${name}/`;
  });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The bmad.json of a package in the multi-workflow layout: name, version and the other top-level
 * fields from the stored manifest (when they are valid), `entry` at the default workflow, and one
 * `workflows[]` item per workflow. `integrity` is dropped: it hashes a zip that no longer exists.
 */
export function deriveManifest(pkg: BmadPackage): BmadManifest {
  const parsed = tryJson(pkg.manifestJson);
  const old = isRecord(parsed) ? parsed : {};
  /** The stored value of a top-level field, when it is present and valid. */
  const valid = <K extends keyof typeof BmadManifest.shape>(key: K): BmadManifest[K] | undefined => {
    const result = BmadManifest.shape[key].safeParse(old[key]);
    return result.success ? (result.data as BmadManifest[K]) : undefined;
  };
  const main = pkg.workflows.find((w) => w.id === pkg.defaultWorkflowId) ?? pkg.workflows[0];
  const description = valid('description');
  const author = valid('author');
  const createdAt = valid('createdAt');
  const runtime = valid('runtime');
  return {
    schemaVersion: valid('schemaVersion') ?? '1.1',
    name: valid('name') ?? 'package',
    version: valid('version') ?? '0.1.0',
    ...(description === undefined ? {} : { description }),
    ...(author === undefined ? {} : { author }),
    ...(createdAt === undefined ? {} : { createdAt }),
    entry: {
      workflow: main?.workflowMdPath ?? `workflows/${SINGLE_WORKFLOW_ID}/workflow.md`,
      graph: main?.graphPath ?? `workflows/${SINGLE_WORKFLOW_ID}/workflow.graph.json`,
      agents: DEFAULT_AGENTS_PATH,
      assetsDir: 'assets/',
    },
    workflows: pkg.workflows.map(
      (w): ManifestWorkflow => ({
        id: w.id,
        ...(w.displayName === undefined ? {} : { displayName: w.displayName }),
        ...(w.description === undefined ? {} : { description: w.description }),
        workflow: w.workflowMdPath,
        graph: w.graphPath,
        ...(w.tags === undefined ? {} : { tags: [...w.tags] }),
      }),
    ),
    ...(runtime === undefined ? {} : { runtime }),
  };
}

/**
 * The same package in the multi-workflow layout: workflows/<id>/{workflow.md, workflow.graph.json,
 * steps/…}, graph node files rewritten to match, agents at agents.json, a derived bmad.json (the
 * stored text is kept when it already says the same), and no stray files. With `portableNames`
 * (the export), file and folder names Windows cannot create get a portable name.
 */
export function toMultiWorkflowLayout(pkg: BmadPackage, options: { portableNames?: boolean } = {}): BmadPackage {
  const portable = options.portableNames === true;
  const folders = workflowFolders(pkg.workflows, portable);
  const workflows = pkg.workflows.map((w, i) => relayoutWorkflow(w, folders[i]!, portable));
  const laidOut: BmadPackage = { ...pkg, workflows, otherFiles: [] };
  delete laidOut.agentsPath;
  laidOut.manifestJson = manifestText(deriveManifest(laidOut), pkg.manifestJson);
  return laidOut;
}

/**
 * The bmad.json to write for `manifest`: the author's `text` itself, byte for byte, when it holds the
 * same value (key order and layout aside); else `manifest` rewritten (jsonFileText) in the line
 * ending `text` had.
 */
export function manifestText(manifest: BmadManifest, text: string | null): string {
  if (text !== null && canonicalJson(tryJson(text)) === canonicalJson(manifest)) return text;
  return jsonFileText(manifest, eolOf(text));
}

/**
 * Where each file of `from` is in `to`, the same package laid out again (toMultiWorkflowLayout,
 * which keeps the order of workflows and steps): path in `from` → path in `to`. What a file came
 * with that is not in its text (a UTF-8 BOM) follows it through a move or a rename.
 */
export function layoutMoves(from: BmadPackage, to: BmadPackage): Map<string, string> {
  const moves = new Map<string, string>([
    [MANIFEST_PATH, MANIFEST_PATH],
    [from.agentsPath ?? DEFAULT_AGENTS_PATH, to.agentsPath ?? DEFAULT_AGENTS_PATH],
  ]);
  from.workflows.forEach((w, i) => {
    const moved = to.workflows[i];
    if (!moved) return;
    moves.set(w.workflowMdPath, moved.workflowMdPath);
    moves.set(w.graphPath, moved.graphPath);
    w.steps.forEach((s, j) => {
      const step = moved.steps[j];
      if (step) moves.set(s.path, step.path);
    });
  });
  for (const a of from.assets) moves.set(a.path, a.path);
  return moves;
}

/**
 * The files of a .bmad zip for this package, in the multi-workflow layout. Names Windows cannot
 * create (a step or workflow id with ":" gives one) are written in a portable form
 * (portable-names.ts): the graph's node.file and bmad.json name the files, so ids stay as they are,
 * and links to a renamed step file in workflow.md and the steps follow it.
 */
export function packageToFiles(pkg: BmadPackage): Map<string, string> {
  return packageToFilesWithSources(pkg).files;
}

/** packageToFiles, and for each file written the path it has in `pkg` (`sources`: written → source). */
export function packageToFilesWithSources(pkg: BmadPackage): { files: Map<string, string>; sources: Map<string, string> } {
  const out = toMultiWorkflowLayout(pkg, { portableNames: true });
  const sources = new Map([...layoutMoves(pkg, out)].map(([from, to]) => [to, from]));
  const files = new Map<string, string>();
  if (out.manifestJson !== null) files.set(MANIFEST_PATH, out.manifestJson);
  if (out.agentsJson !== null) files.set(DEFAULT_AGENTS_PATH, out.agentsJson);
  for (const w of out.workflows) {
    if (w.workflowMd !== null) files.set(w.workflowMdPath, w.workflowMd);
    if (w.graphJson !== null) files.set(w.graphPath, w.graphJson);
    for (const s of w.steps) files.set(s.path, s.markdown);
  }
  for (const a of out.assets) files.set(a.path, a.content);
  return { files, sources };
}
