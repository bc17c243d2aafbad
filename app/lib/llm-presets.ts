/** The provider presets of the AI settings page: labels that pre-fill base URL and model. */
import type { LlmPreset } from '../../shared/api/index.ts';
import { t } from './i18n/i18n.svelte.ts';
import './i18n/llm-words.ts';
import { LLM_PRESET_MODELS, type LlmPresetModel } from './llm-preset-models.ts';

/** What the provider choice offers: a preset, or turning AI off. */
export type LlmChoice = LlmPreset | 'off';

export interface LlmPresetOption extends LlmPresetModel {
  label: string;
  description: string;
  /** Shown under the key field. */
  keyHint: string;
}

/** A preset's words come from the catalogue, read when shown so they follow the language. */
function preset(option: LlmPresetModel): LlmPresetOption {
  return {
    ...option,
    get label() {
      return t(`llm.presets.${option.id}.label`);
    },
    get description() {
      return t(`llm.presets.${option.id}.description`);
    },
    get keyHint() {
      return t(`llm.presets.${option.id}.keyHint`);
    },
  };
}

export const LLM_PRESET_OPTIONS: readonly LlmPresetOption[] = LLM_PRESET_MODELS.map(preset);

export function presetOption(id: LlmPreset | null): LlmPresetOption | undefined {
  return LLM_PRESET_OPTIONS.find((option) => option.id === id);
}

