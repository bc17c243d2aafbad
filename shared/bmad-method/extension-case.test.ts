/**
 * Extensions in upper case, as some systems and editors write them (`workflow.MD`, `step-01.MD`,
 * `Brain Methods.CSV`): plainly Markdown and CSV files, so both layouts read them as such, keep the
 * author's file names, and export them back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { packageFromFiles, packageToFiles } from '../bmad/package-files.ts';
import { validatePackage } from '../bmad/pipeline.ts';
import { asciiAssetPaths } from './ascii-assets.ts';
import { deriveBmadMethod, isBmadMethodLayout } from './derive.ts';
import { exportBmadMethod } from './export.ts';

const sorted = (files: Map<string, string>) => new Map([...files].sort(([a], [b]) => a.localeCompare(b)));

describe('upper-case extensions', () => {
  it('a BMAD-METHOD folder with workflow.MD and steps/*.MD is a workflow with its steps, exported back byte for byte', () => {
    const files = new Map([
      ['notes/workflow.MD', '---\nname: notes\ndescription: Keep notes.\n---\n\n# Notes\n\nLoad `./steps/step-01-collect.MD`.\n'],
      ['notes/steps/step-01-collect.MD', '# Collect\n\nList the notes, then load `./step-02-index.MD`.\n'],
      ['notes/steps/step-02-index.MD', '# Index\n\nWrite the index.\n'],
      ['notes/data/Brain-Methods.CSV', 'method,use\nlist,start\n'],
    ]);
    expect(isBmadMethodLayout(files)).toBe(true);
    const d = deriveBmadMethod(files);
    expect(d.issues.filter((i) => i.code !== 'BMAD_AGENT_PLACEHOLDER')).toEqual([]);
    expect(d.workflows.map((w) => [w.id, w.graph.entryNodeId, w.graph.edges.map((e) => `${e.from} -> ${e.to}`)])).toEqual([
      ['notes', 'step-01-collect', ['step-01-collect -> step-02-index']],
    ]);
    expect(d.pkg.workflows[0]!.steps.map((s) => s.path)).toEqual(['workflows/notes/steps/step-01-collect.MD', 'workflows/notes/steps/step-02-index.MD']);
    expect(d.pkg.assets.map((a) => a.path)).toEqual(['assets/notes/data/Brain-Methods.CSV']);
    expect(validatePackage(d.pkg).errors).toEqual([]);
    expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(sorted(files));
  });

  it('a .bmad whose step files end in .MD and an asset in .CSV is valid, and exports byte for byte', () => {
    const files = loadFixture('two-workflows');
    const upper = new Map<string, string>();
    for (const [path, text] of files) {
      const renamed = path.replace(/^(workflows\/[^/]+\/steps\/[^/]+)\.md$/u, '$1.MD').replace(/\.yaml$/u, '.YAML');
      upper.set(renamed, text.replace(/(steps\/[a-z-]+)\.md/gu, '$1.MD').replace(/sla-targets\.yaml/gu, 'sla-targets.YAML'));
    }
    expect([...upper.keys()]).toContain('workflows/ticket-triage/steps/receive-ticket.MD');
    expect([...upper.keys()]).toContain('assets/data/sla-targets.YAML');
    const pkg = packageFromFiles(upper);
    expect(validatePackage(pkg).errors).toEqual([]);
    expect(sorted(packageToFiles(pkg))).toEqual(sorted(upper));
  });

  it('an asset named outside ASCII with an upper-case extension gets an ASCII name that keeps it, and the package stays valid', () => {
    const files = loadFixture('two-workflows');
    files.set('assets/data/Brain Methods.CSV', 'method,use\nlist,start\n');
    const ascii = asciiAssetPaths(packageFromFiles(files));
    expect(ascii.renames).toEqual([{ from: 'assets/data/Brain Methods.CSV', to: expect.stringMatching(/^assets\/data\/asset-[0-9a-f]{8}\.CSV$/u) }]);
    expect(validatePackage(ascii.pkg).errors).toEqual([]);
  });
});
