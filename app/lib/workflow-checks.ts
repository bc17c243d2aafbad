/**
 * What the workflow page needs from `shared/bmad` that carries the YAML parser: the single-file
 * validators and frontmatter read/write. `WorkflowDoc` imports this module with `import()` when it
 * opens, so the page's first load is the graph and its words, not yaml and the rule set (~40 KiB gzipped).
 */
export { validateGraph, validateStepFile, validateWorkflowMd } from '../../shared/bmad/validate-file.ts';
export { parseFrontmatter, serializeFrontmatter } from '../../shared/bmad/frontmatter.ts';

export type WorkflowChecks = typeof import('./workflow-checks.ts');
