/**
 * `.bmad` package → BMAD-METHOD layout, for authors contributing back: every stored file goes to
 * where it came from (the origin record), with the generated `.bmad` fields stripped, so an
 * unchanged file comes back byte for byte and a changed one differs only where it was edited.
 * What the layout has no place for (the graph, agents.json) is left out with a warning, and so is
 * any graph edge no step file links (the step text, not the graph, is what BMAD runs).
 */
import { warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import type { BmadPackage } from '../bmad/package.ts';
import { deriveBmadMethod, type BmadMethodOrigin, type OriginWorkflow } from './derive.ts';
import { generatedField, stripGeneratedFields } from './generated.ts';
import { spliceInlineSteps } from './inline-steps.ts';

export interface BmadMethodExport {
  files: Map<string, string>;
  /** For each file written, the stored file it was written from (a step written inline: its workflow's workflow.md). */
  sources: Map<string, string>;
  warnings: ValidationIssue[];
}

function readGraphEdges(graphJson: string | null): { edges: Array<{ from: string; to: string }>; files: Map<string, string> } {
  try {
    const graph = JSON.parse(graphJson ?? '') as { nodes?: Array<{ id?: unknown; file?: unknown }>; edges?: Array<{ from?: unknown; to?: unknown }> };
    const files = new Map<string, string>();
    for (const n of graph.nodes ?? []) if (typeof n.id === 'string' && typeof n.file === 'string') files.set(n.id, n.file);
    const edges = (graph.edges ?? []).filter((e): e is { from: string; to: string } => typeof e.from === 'string' && typeof e.to === 'string');
    return { edges, files };
  } catch {
    return { edges: [], files: new Map() };
  }
}

/**
 * Every mention of an asset the import renamed to ASCII (`asset-8f8649fe.csv`) spelled again as the
 * author named it (`清单.csv`), the reverse of ascii-assets.ts, for the assets still stored under
 * that name. (A link the author had percent-encoded comes back unencoded.)
 */
function giveAssetNamesBack(files: ReadonlyMap<string, string>, pkg: BmadPackage, names: Readonly<Record<string, string>>): Map<string, string> {
  const pairs: Array<[string, string]> = [];
  for (const asset of pkg.assets) {
    const original = names[asset.path];
    if (original === undefined) continue;
    const depth = asset.path.split('/').length - 1;
    const ascii = asset.path.split('/').slice(depth).join('/');
    const own = `assets/${original}`.split('/').slice(depth).join('/');
    if (ascii !== own) pairs.push([ascii, own]);
  }
  if (pairs.length === 0) return new Map(files);
  pairs.sort(([a], [b]) => b.length - a.length);
  return new Map([...files].map(([path, text]) => [path, pairs.reduce((out, [from, to]) => out.split(from).join(to), text)]));
}

export function exportBmadMethod(pkg: BmadPackage, origin: BmadMethodOrigin | null): BmadMethodExport {
  const files = new Map<string, string>();
  const sources = new Map<string, string>();
  const warnings: ValidationIssue[] = [];
  const known = new Map((origin?.workflows ?? []).map((w) => [w.id, w]));
  const assetNames = origin?.assets ?? {};
  const assetTarget = (path: string) => assetNames[path] ?? path.replace(/^assets\//u, '');
  const put = (target: string, text: string, storedPath: string) => {
    const stripped = stripGeneratedFields(text);
    if (!stripped.ok && text.startsWith('---')) {
      warnings.push(
        warningIssue('BMAD_EXPORT_REWRITTEN', storedPath, `${storedPath} is written to ${target} as stored: its generated .bmad fields were not found, so they could not be removed.`, {
          hint: 'Remove schemaVersion, nodeId, type and origin from its frontmatter by hand if BMAD should not see them.',
        }),
      );
    }
    files.set(target, stripped.text);
    sources.set(target, storedPath);
  };
  for (const workflow of pkg.workflows) {
    const where: OriginWorkflow = known.get(workflow.id) ?? { id: workflow.id, dir: `${workflow.id}/`, file: 'workflow.md' };
    const storedDir = `workflows/${workflow.id}/`;
    const inFolder = (storedPath: string) => (storedPath.startsWith(storedDir) ? storedPath.slice(storedDir.length) : `steps/${storedPath.slice(storedPath.lastIndexOf('/') + 1)}`);
    const target = (storedPath: string) => where.dir + (where.renamed?.[inFolder(storedPath)] ?? inFolder(storedPath));
    const nodeFiles = new Map<string, string>();
    // Steps the import wrote (an Exit's end node) are not BMAD files; steps written inline go back into the workflow text.
    const inline = new Map<string, { text: string; path: string }>();
    for (const step of workflow.steps) {
      const exportAs = generatedField(step.markdown, 'exportAs');
      if (exportAs === 'none') continue;
      const nodeId = generatedField(step.markdown, 'nodeId') ?? step.nodeId ?? step.path;
      if (exportAs === 'inline') {
        inline.set(nodeId, { text: stripGeneratedFields(step.markdown).text, path: step.path });
        nodeFiles.set(step.path, `${where.dir}${where.file}#${nodeId}`);
        continue;
      }
      put(target(step.path), step.markdown, step.path);
      nodeFiles.set(step.path, target(step.path));
    }
    if (workflow.workflowMd !== null) {
      put(where.dir + where.file, workflow.workflowMd, workflow.workflowMdPath);
      if (inline.size > 0) {
        const spliced = spliceInlineSteps(files.get(where.dir + where.file)!, (nodeId) => inline.get(nodeId)?.text);
        files.set(where.dir + where.file, spliced.text);
        for (const [nodeId, step] of inline) {
          if (spliced.used.includes(nodeId)) continue;
          warnings.push(
            warningIssue('BMAD_EXPORT_NOT_WRITTEN', step.path, `${step.path} was written inline in ${where.file}, but its place there (the crewagent:inline-step ${nodeId} marker) is gone, so it was left out.`, {
              hint: `Put the marker back in workflow.md where the step belongs, or copy the step's text there.`,
            }),
          );
        }
      }
    }
    // Edges drawn in the Builder but written in no step file: BMAD would never take them.
    const { edges, files: fileOf } = readGraphEdges(workflow.graphJson);
    // Read again as the import read it: the workflow's files and the other files of its folder (a
    // legacy workflow.yaml, which names the instructions file, is stored as an asset).
    const folder = new Map(pkg.assets.map((a) => [assetTarget(a.path), a.content] as const).filter(([p]) => p.startsWith(where.dir)));
    for (const [p, text] of files) if (p.startsWith(where.dir)) folder.set(p, text);
    const rederived = deriveBmadMethod(folder);
    const linked = new Set(
      rederived.workflows.flatMap((w) => w.graph.edges.map((e) => `${w.steps.find((s) => s.nodeId === e.from)?.source}→${w.steps.find((s) => s.nodeId === e.to)?.source}`)),
    );
    for (const edge of edges) {
      const from = nodeFiles.get(fileOf.get(edge.from) ?? '');
      const to = nodeFiles.get(fileOf.get(edge.to) ?? '');
      if (from && to && !linked.has(`${from}→${to}`)) {
        warnings.push(
          warningIssue('BMAD_EXPORT_UNLINKED_EDGE', workflow.graphPath, `The edge ${edge.from} → ${edge.to} is in the graph, but ${from} does not link ${to}.`, {
            hint: `Write the link into ${from} (e.g. "load \`./${to.slice(to.lastIndexOf('/') + 1)}\`") so BMAD follows it.`,
          }),
        );
      }
    }
  }
  for (const asset of pkg.assets) {
    const target = assetTarget(asset.path);
    if (files.has(target)) {
      warnings.push(warningIssue('BMAD_EXPORT_NOT_WRITTEN', asset.path, `${asset.path} would overwrite ${target}, a workflow file; it was left out.`));
      continue;
    }
    files.set(target, asset.content);
    sources.set(target, asset.path);
  }
  warnings.push(
    warningIssue('BMAD_EXPORT_NOT_WRITTEN', 'agents.json', 'agents.json is not part of the BMAD-METHOD layout and was left out; agent files (*.agent.yaml) are exported as they were imported.', {
      hint: 'Agent changes made in the Builder are not written back to *.agent.yaml files.',
    }),
  );
  if (!origin) {
    warnings.push(
      warningIssue('BMAD_EXPORT_NOT_WRITTEN', 'bmad.json', 'This project has no record of BMAD-METHOD folders (it was made here, or imported from a .bmad without one): each workflow is written to a folder named by its id (<id>/workflow.md, <id>/steps/…). Fields a BMAD-METHOD import added are removed; a file made here keeps its .bmad frontmatter.',
      { hint: 'To get the original folders and file names back, export to BMAD-METHOD from the project the BMAD-METHOD zip was imported into, or from a .bmad exported from it.' }),
    );
  }
  const named = giveAssetNamesBack(files, pkg, assetNames);
  return { files: new Map([...named].sort(([a], [b]) => a.localeCompare(b))), sources, warnings };
}
