// Reads the 4xx answers real OpenAI-compatible servers give when they cannot do something we asked:
// a model or server without tool calling (Ollama, vLLM, OpenRouter…), or a request parameter it does
// not know (stream_options on older Azure api-versions and some local servers). Pure text matching.

import { APIError } from 'openai/core/error';

/** Whose words matched: the hint differs (an Ollama model to pull, vLLM flags to set). */
export type NoToolsFlavour = 'ollama' | 'vllm' | 'generic';

const NO_TOOLS_PATTERNS: ReadonlyArray<[RegExp, NoToolsFlavour]> = [
  // Ollama: `registry.ollama.ai/library/gemma:2b does not support tools`
  [/registry\.ollama\.ai\/\S+ does not support tools/i, 'ollama'],
  // vLLM started without a tool parser (it defaults tool_choice to "auto" whenever tools are sent).
  [/"auto" tool choice requires --enable-auto-tool-choice/i, 'vllm'],
  [/--tool-call-parser/i, 'vllm'],
  // OpenRouter: `No endpoints found that support tool use.`
  [/no endpoints found that support tool use/i, 'generic'],
  [/does not support (tools|tool use|tool calling|tool calls|function calling|functions)\b/i, 'generic'],
  [/(tools|tool use|tool calling|function calling) (is|are) not supported/i, 'generic'],
];

/** The flavour of "this model cannot call tools", or null when the text says something else. */
export function noToolsFlavour(providerText: string): NoToolsFlavour | null {
  for (const [pattern, flavour] of NO_TOOLS_PATTERNS) if (pattern.test(providerText)) return flavour;
  return null;
}

export function noToolsHints(flavour: NoToolsFlavour): string[] {
  switch (flavour) {
    case 'ollama':
      return [
        'Pick a model with tool calling in Ollama, e.g. qwen2.5 or llama3.1 (`ollama pull qwen2.5`), and set it as the model in your AI settings.',
      ];
    case 'vllm':
      return [
        'Start vLLM with --enable-auto-tool-choice and a --tool-call-parser that fits the model (e.g. hermes for Qwen, llama3_json for Llama 3.1).',
        'Or choose another model server in your AI settings.',
      ];
    case 'generic':
      return [
        'Choose a model with tool (function) calling in your AI settings, e.g. gpt-4o-mini; for Ollama a tools-capable model like qwen2.5 or llama3.1.',
      ];
    default: {
      const never: never = flavour;
      throw new Error(`unknown flavour ${String(never)}`);
    }
  }
}

/**
 * Which of `optional` (parameters we can do without) a 400/422 refused, or null. Azure's older
 * api-versions say `Unrecognized request argument supplied: stream_options`; others name the
 * parameter in `param` or in the text.
 */
export function rejectedOptionalParameter(error: unknown, optional: readonly string[]): string | null {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return null;
  const body = error.error as { message?: unknown } | undefined;
  const text = `${typeof body?.message === 'string' ? body.message : ''} ${error.message}`;
  for (const name of optional) {
    if (error.param === name) return name;
    if (new RegExp(`\\b${name}\\b`).test(text) && /unrecognized|unknown|not (supported|permitted|allowed)|extra (inputs|fields)|unexpected|invalid/i.test(text)) {
      return name;
    }
  }
  return null;
}
