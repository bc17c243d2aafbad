/**
 * The connection test of /api/users/me/llm-profile/test: the provider adapter's probe() (a tiny
 * completion), its text redacted once more here because it is about to leave the Worker.
 */
import { ApiError } from '../../shared/api-error.ts';
import { fetchWithoutRedirects } from './base-url.ts';
import { toProviderProfile } from './effective-profile.ts';
import type { ProbeFn } from './profile-service.ts';
import { createChatProvider } from './provider.ts';
import { redactText } from './redact.ts';
import { logError } from '../../shared/errors-report.ts';

export const probeProvider: ProbeFn = async (target) => {
  const secrets = target.apiKey ? [target.apiKey] : [];
  try {
    const result = await createChatProvider(toProviderProfile(target), { fetch: fetchWithoutRedirects }).probe();
    if (result.ok) return { ok: true, latencyMs: result.latencyMs, model: redactText(result.model, secrets) };
    return { ok: false, code: result.code, message: redactText(result.message, secrets), hints: result.hints.map((hint) => redactText(hint, secrets)) };
  } catch (error) {
    // probe() answers every provider failure with a result; reaching this is a bug of ours.
    logError('llm probe failed unexpectedly', error, {}, { redact: (line) => redactText(line, secrets) });
    throw new ApiError('INTERNAL_ERROR');
  }
};
