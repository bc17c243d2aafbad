/**
 * A step's title is its `# Heading`, also when its frontmatter is not valid YAML and is set aside
 * as `# crewagent:invalid-yaml` comment lines until export (which must still be byte for byte).
 */
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../bmad/pipeline.ts';
import { deriveBmadMethod } from './derive.ts';
import { exportBmadMethod } from './export.ts';

describe('step titles', () => {
  it('a step with invalid frontmatter YAML is titled by its heading, not by a set-aside line, and exports byte for byte', () => {
    const files = new Map([
      ['odd/workflow.md', '---\nname: odd\ndescription: Two steps\n---\n\nLoad `./steps/step-01-a.md`\n'],
      ['odd/steps/step-01-a.md', "---\nname: step-01-a\nnextStepFile: './step-02-b.md'\n---\n\n# A\n\nThen load {nextStepFile}\n"],
      ['odd/steps/step-02-b.md', '---\nname: step-02-b\ndescription: Step 2: the end\n---\n\n# B\n\nDone.\n'],
    ]);
    const d = deriveBmadMethod(files);
    expect(d.issues.map((i) => `${i.code} ${i.filePath}`)).toContain('BMAD_FRONTMATTER_INVALID odd/steps/step-02-b.md');
    expect(d.workflows[0]!.graph.nodes.map((n) => [n.id, n.title])).toEqual([
      ['step-01-a', 'A'],
      ['step-02-b', 'B'],
    ]);
    expect(validatePackage(d.pkg).errors).toEqual([]);
    expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(new Map([...files].sort(([a], [b]) => a.localeCompare(b))));
  });
});
