/**
 * What the workflow page needs from `shared/bmad` that carries the YAML parser: the single-file
 * validators and frontmatter read/write. `WorkflowDoc` imports this module with `import()` when it
 * opens, so the page's first load is the graph and its words, not yaml and the rule set (~40 KiB gzipped).
 */
import { validateGraph, validateStepFile, validateWorkflowMd } from '../../shared/bmad/validate-file.ts';
import { parseFrontmatter, serializeFrontmatter } from '../../shared/bmad/frontmatter.ts';

export { validateGraph, validateStepFile, validateWorkflowMd, parseFrontmatter, serializeFrontmatter };

/** What the module holds, for the page that loads it later. */
export interface WorkflowChecks {
  validateGraph: typeof validateGraph;
  validateStepFile: typeof validateStepFile;
  validateWorkflowMd: typeof validateWorkflowMd;
  parseFrontmatter: typeof parseFrontmatter;
  serializeFrontmatter: typeof serializeFrontmatter;
}
