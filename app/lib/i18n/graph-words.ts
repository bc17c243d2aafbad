/**
 * The workflow graph's words — node types, the canvas toolbar, the step and edge inspectors, graph
 * edits (`graph.*`) and the workflow editor page's own (`workflowPage.*`) — kept out of the
 * catalogue every page loads: the modules that show them import this one for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { graph as graphEn, workflowPage as workflowPageEn } from './en/graph.ts';
import { graph as graphZh, workflowPage as workflowPageZh } from './zh/graph.ts';

addWords('graph', { en: graphEn, zh: graphZh });
addWords('workflowPage', { en: workflowPageEn, zh: workflowPageZh });
