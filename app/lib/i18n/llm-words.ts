/**
 * The AI settings' words (`llm.*`: the provider presets, the profile form, the saved profile and
 * its availability), kept out of the catalogue every page loads: the modules that show them import
 * this one for its side effect.
 */
import { addWords } from './i18n.svelte.ts';
import { llm as en } from './en/llm.ts';
import { llm as zh } from './zh/llm.ts';

addWords('llm', { en, zh });
