/**
 * The agents pages' words — the agent editor (`agents.*`) and the pages around it (`agentsPage.*`) —
 * kept out of the catalogue every page loads: the modules that show them import this one for its
 * side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { agents as agentsEn, agentsPage as agentsPageEn } from './en/agents.ts';
import { agents as agentsZh, agentsPage as agentsPageZh } from './zh/agents.ts';

addWords('agents', { en: agentsEn, zh: agentsZh });
addWords('agentsPage', { en: agentsPageEn, zh: agentsPageZh });
