/**
 * ASCII names for imported assets. Asset paths stay within the format's character set
 * (`[A-Za-z0-9._/-]`, shared/bmad/asset-path.ts), but authors name files in their own language
 * (`assets/模板/需求模板.md`, `data/评审 清单.csv`). Rather than refuse or drop such a file, the
 * import proposes a stable ASCII name, `asset-<hash8>.<ext>` (FNV-1a of the original path: the same
 * upload always gets the same name), shown in the import preview, and rewrites every mention of the
 * old name in the package's text (steps, workflow.md, graphs, agents.json, other assets), so the
 * links keep working. No transliteration: pinyin needs a dictionary of several hundred KB (not
 * worth shipping in the Worker for a file name), and a hash never guesses a reading wrong.
 *
 * The name is replaced from the first segment with a character outside the set: ASCII folders
 * before it stay, so `assets/templates/需求模板.md` becomes `assets/templates/asset-1a2b3c4d.md`, and
 * the text `需求模板.md` (however the link reaches it, `./`, `../templates/` or `{installed_path}/`)
 * becomes `asset-1a2b3c4d.md`.
 */
import { warningIssue, type ValidationIssue } from '../bmad/issues.ts';
import type { BmadPackage } from '../bmad/package.ts';
import { OriginPath } from '../bmad/models.ts';

const SEGMENT = /^[A-Za-z0-9._-]+$/u;

/** FNV-1a (32 bit) over the UTF-8 bytes, as 8 hex digits: short, stable, synchronous. */
export function hash8(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

export interface AssetRename {
  from: string;
  to: string;
}

/** The ASCII path proposed for `path`, not one of `taken`; null when the path needs no new name. */
export function proposeAsciiPath(path: string, taken: ReadonlySet<string>): string | null {
  const segments = path.split('/');
  const first = segments.findIndex((segment, i) => i > 0 && !SEGMENT.test(segment));
  if (first < 0) return null;
  const name = segments.at(-1)!;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && SEGMENT.test(name.slice(dot)) ? name.slice(dot) : '';
  const stem = [...segments.slice(0, first), `asset-${hash8(path)}`].join('/');
  let candidate = `${stem}${extension}`;
  for (let n = 2; taken.has(candidate); n++) candidate = `${stem}-${n}${extension}`;
  return candidate;
}

/** The part of the path from its first renamed segment: what a link to the file spells out. */
function tail(path: string, depth: number): string {
  return path.split('/').slice(depth).join('/');
}

function rewrite(text: string, replacements: ReadonlyArray<readonly [string, string]>): string {
  let out = text;
  for (const [from, to] of replacements) {
    out = out.split(from).join(to);
    // Markdown links may percent-encode the name: [模板](./%E6%A8%A1%E6%9D%BF.md).
    const encoded = encodeURI(from);
    if (encoded !== from) out = out.split(encoded).join(to);
  }
  return out;
}

/**
 * The package with every asset outside the path character set renamed and the links to it
 * rewritten, the renames made, and one ASSET_RENAMED warning each. A package with ASCII names
 * comes back unchanged (the same object), so its round trip stays byte for byte.
 */
export function asciiAssetPaths(pkg: BmadPackage): { pkg: BmadPackage; renames: AssetRename[]; issues: ValidationIssue[] } {
  const taken = new Set(pkg.assets.map((a) => a.path));
  const renames: AssetRename[] = [];
  const replacements: Array<[string, string]> = [];
  for (const asset of pkg.assets) {
    const to = proposeAsciiPath(asset.path, taken);
    if (to === null) continue;
    taken.add(to);
    renames.push({ from: asset.path, to });
    const depth = to.split('/').length - 1;
    replacements.push([tail(asset.path, depth), tail(to, depth)]);
  }
  if (renames.length === 0) return { pkg, renames, issues: [] };
  // Longer names first, so a name that ends another one is not replaced inside it.
  replacements.sort(([a], [b]) => b.length - a.length);
  const renamed = new Map(renames.map((r) => [r.from, r.to]));
  const edit = (text: string | null) => (text === null ? null : rewrite(text, replacements));
  const next: BmadPackage = {
    ...pkg,
    agentsJson: edit(pkg.agentsJson),
    workflows: pkg.workflows.map((w) => ({
      ...w,
      workflowMd: edit(w.workflowMd),
      graphJson: edit(w.graphJson),
      steps: w.steps.map((s) => ({ ...s, markdown: rewrite(s.markdown, replacements) })),
    })),
    assets: pkg.assets.map((a) => ({ path: renamed.get(a.path) ?? a.path, content: rewrite(a.content, replacements) })),
  };
  const issues = renames.map((r) =>
    warningIssue('ASSET_RENAMED', r.to, `${r.from} was renamed to ${r.to}: asset paths use only A-Z, a-z, digits, ".", "_", "-" and "/". Links to it were rewritten.`, {
      params: { from: r.from, to: r.to },
      hint: 'Rename it in the asset editor if you prefer another ASCII name.',
    }),
  );
  return { pkg: next, renames, issues };
}

/**
 * The origin record with the assets the import renamed (`assets: {stored path → path in the
 * BMAD layout}`), so export to BMAD-METHOD writes each under its own name again. A path the
 * record cannot keep (over 300 characters, a colon) is left out: that asset stays under its ASCII name.
 */
export function withAssetNames<T extends { assets?: Record<string, string> }>(origin: T, renames: readonly AssetRename[]): T {
  const assets = Object.fromEntries(
    renames
      .map((r) => [r.to, r.from.replace(/^assets\//u, '')] as const)
      .filter(([to, from]) => OriginPath.safeParse(to).success && OriginPath.safeParse(from).success),
  );
  return Object.keys(assets).length > 0 ? { ...origin, assets } : origin;
}
