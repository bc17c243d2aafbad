/**
 * The organisation's LLM policy: `LLM_ORG_POLICY_MODE` in wrangler.toml [vars].
 * It outranks every profile (OrgPolicy > UserProfile > SystemDefault) and is checked on save,
 * on test and on use, through resolveEffectiveProfile.
 *
 * - `allow-all` (the default when unset): every provider.
 * - `disable-all`: no LLM call at all; the product works without AI (spec NFR: "no external calls").
 * - `allow-openai-compatible-only`: only the `openai-compatible` provider. It is the only
 *   provider today, so this mode blocks nothing yet; it is the seam for native adapters added
 *   later (they must be listed in ALLOWED_PROVIDERS below). UI presets (openai, deepseek, local, …)
 *   are labels on `openai-compatible` and are deliberately not policy: where a key goes is decided
 *   by the base URL, which base-url.ts governs.
 *
 * An unrecognised mode fails closed (treated as blocking), so a typo never opens AI up.
 * Turning AI off (`provider: 'disabled'`) is never blocked.
 */
import type { LlmVars } from './llm-vars.ts';
import type { LlmProvider } from '../../shared/api/llm-profile.ts';

export const ORG_POLICY_MODES = ['allow-all', 'disable-all', 'allow-openai-compatible-only'] as const;
export type OrgPolicyMode = (typeof ORG_POLICY_MODES)[number];

/** The providers that call a model. */
export type CallingProvider = Exclude<LlmProvider, 'disabled'>;

const ALLOWED_PROVIDERS: Record<OrgPolicyMode, ReadonlySet<CallingProvider>> = {
  'allow-all': new Set<CallingProvider>(['openai-compatible']),
  'disable-all': new Set<CallingProvider>(),
  'allow-openai-compatible-only': new Set<CallingProvider>(['openai-compatible']),
};

export type PolicyDecision = { type: 'allowed' } | { type: 'blocked'; message: string; hints: string[] };

export type OrgPolicyReading = { type: 'mode'; mode: OrgPolicyMode } | { type: 'misconfigured'; value: string };

export function readOrgPolicy(env: Pick<LlmVars, 'LLM_ORG_POLICY_MODE'>): OrgPolicyReading {
  const value = env.LLM_ORG_POLICY_MODE?.trim() ?? '';
  if (value === '') return { type: 'mode', mode: 'allow-all' };
  return (ORG_POLICY_MODES as readonly string[]).includes(value)
    ? { type: 'mode', mode: value as OrgPolicyMode }
    : { type: 'misconfigured', value };
}

/** May `provider` be saved, tested or used under the organisation's policy? */
export function checkOrgPolicy(env: Pick<LlmVars, 'LLM_ORG_POLICY_MODE'>, provider: CallingProvider): PolicyDecision {
  const policy = readOrgPolicy(env);
  switch (policy.type) {
    case 'misconfigured':
      return {
        type: 'blocked',
        message: 'AI is blocked because the organisation policy setting is not recognised.',
        hints: [
          `Operators: LLM_ORG_POLICY_MODE is "${policy.value.slice(0, 60)}"; use one of ${ORG_POLICY_MODES.join(', ')}.`,
        ],
      };
    case 'mode': {
      if (ALLOWED_PROVIDERS[policy.mode].has(provider)) return { type: 'allowed' };
      return policy.mode === 'disable-all'
        ? {
            type: 'blocked',
            message: 'Your organisation has turned AI off for everyone.',
            hints: ['Everything else in the Builder keeps working. Ask an administrator if you need AI.'],
          }
        : {
            type: 'blocked',
            message: `Your organisation allows only OpenAI-compatible providers, not "${provider}".`,
            hints: ['Pick one of the providers in Settings → AI (/settings/ai): they all use the OpenAI-compatible API.'],
          };
    }
    default: {
      const never: never = policy;
      throw new Error(`unhandled org policy ${String(never)}`);
    }
  }
}

/** Is any LLM call allowed at all? `disable-all` and an unrecognised mode say no before any profile is read. */
export function checkAiAllowed(env: Pick<LlmVars, 'LLM_ORG_POLICY_MODE'>): PolicyDecision {
  const policy = readOrgPolicy(env);
  if (policy.type === 'mode' && ALLOWED_PROVIDERS[policy.mode].size > 0) return { type: 'allowed' };
  return checkOrgPolicy(env, 'openai-compatible');
}
