// What one call of the provider adapter ends with: a result, an abort, or a ProviderError.

import type { ChatResult } from '../../shared/llm/types.ts';
import type { ProviderError, ProviderErrorCode } from './provider-error.ts';

export type ChatOutcome =
  | { type: 'completed'; result: ChatResult }
  /** The caller's signal aborted the call; `partial` holds what streamed before. Not an error. */
  | { type: 'aborted'; partial: ChatResult }
  | { type: 'failed'; error: ProviderError; partial?: ChatResult };

export type ProbeResult =
  | { ok: true; latencyMs: number; model: string }
  | { ok: false; code: ProviderErrorCode; message: string; hints: string[] };
