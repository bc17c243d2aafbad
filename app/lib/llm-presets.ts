/** The provider presets of the AI settings page: labels that pre-fill base URL and model. */
import type { LlmPreset } from '../../shared/api/index.ts';

/** What the provider choice offers: a preset, or turning AI off. */
export type LlmChoice = LlmPreset | 'off';

export interface LlmPresetOption {
  id: LlmPreset;
  label: string;
  description: string;
  baseUrl: string;
  model: string;
  /** Shown under the key field. */
  keyHint: string;
  /** Filled into an empty key field: only the offline demo model, whose key is no secret. */
  demoKey?: string;
}

/** The port `npm start` gives the scripted model server (scripts/start.ts: PORT + 1). */
const DEMO_MODEL_URL = 'http://127.0.0.1:8788/v1';

export const LLM_PRESET_OPTIONS: readonly LlmPresetOption[] = [
  {
    id: 'openai',
    label: 'OpenAI',
    description: 'GPT models from api.openai.com.',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    keyHint: 'Create a key under API keys in your OpenAI dashboard; it starts with sk-.',
  },
  {
    id: 'deepseek',
    label: 'DeepSeek',
    description: 'DeepSeek chat models.',
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
    keyHint: 'Create a key under API keys in the DeepSeek platform.',
  },
  {
    id: 'openrouter',
    label: 'OpenRouter',
    description: 'Many vendors behind one key.',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'openai/gpt-4o-mini',
    keyHint: 'Create a key under Keys in your OpenRouter account; model ids look like vendor/model.',
  },
  {
    id: 'local',
    label: 'Local server',
    description: 'Ollama, vLLM or LM Studio.',
    baseUrl: 'http://localhost:11434/v1',
    model: 'llama3.1',
    keyHint: 'Local servers usually need no key: leave it empty.',
  },
  {
    id: 'custom',
    label: 'Custom',
    description: 'Any OpenAI-compatible server.',
    baseUrl: '',
    model: '',
    keyHint: 'The key your server expects as "Authorization: Bearer …"; leave it empty if it needs none.',
  },
  {
    id: 'scripted-demo',
    label: 'Scripted demo model',
    description: 'Offline demo: canned answers, no real AI.',
    baseUrl: DEMO_MODEL_URL,
    model: 'scripted-demo',
    keyHint: 'The demo model accepts any key; one is filled in for you.',
    demoKey: 'sk-local-demo-key',
  },
];

export function presetOption(id: LlmPreset | null): LlmPresetOption | undefined {
  return LLM_PRESET_OPTIONS.find((option) => option.id === id);
}

