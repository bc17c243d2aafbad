/**
 * The semantic diff and its view, loaded together the first time a file that has one is shown:
 * they carry the YAML parser and Svelte Flow's graph view, which the Workbench's first load does not.
 */
export { semanticDiff } from '../../../../shared/ai/semantic-diff/index.ts';
export { default as SemanticDiff } from './SemanticDiff.svelte';
