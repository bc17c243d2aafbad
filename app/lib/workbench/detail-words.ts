/**
 * What the session object sends as English sentences beside codes and values — risk reasons,
 * tool-call summaries, prompt layer titles, the context envelope's keys — in the reader's
 * language. English keeps the server's sentence (the same words); other languages are built from
 * the codes and values, and a line sent without them (an older event) keeps the server's text.
 */
import type { RiskFlag } from '../../../shared/ai/change-impact.ts';
import { TOOL_REQUEST_CODES, TOOL_RESULT_CODES } from '../../../shared/ai/tool-codes.ts';
import type { ToolWords } from '../../../shared/ai/tool-words.ts';
import type { PromptLayerId } from '../../../shared/ai/turn.ts';
import type { MessageKey } from '../i18n/catalogue.ts';
import { locale, t } from '../i18n/i18n.svelte.ts';
import { eventErrorText } from './event-error.ts';

const RISK_KEYS = {
  missing: 'workbenchDetails.risks.missing',
  'agent-removed': 'workbenchDetails.risks.agentRemoved',
  'agent-missing': 'workbenchDetails.risks.agentMissing',
  'asset-moved': 'workbenchDetails.risks.assetMoved',
} as const satisfies Record<Extract<RiskFlag, { flag: 'broken-reference' }>['cause'], MessageKey>;

/** A risk flag's reason: "step:wf/a changes 240 lines." */
export function riskText(risk: RiskFlag): string {
  if (locale() === 'en') return risk.message;
  const key = risk.objectKey;
  switch (risk.flag) {
    case 'cross-object':
      return t('workbenchDetails.risks.crossObject', { key });
    case 'high-churn':
      return typeof risk.lines === 'number' ? t('workbenchDetails.risks.highChurn', { key, count: risk.lines }) : risk.message;
    case 'deletes':
      return t('workbenchDetails.risks.deletes', { key });
    case 'broken-reference':
      return risk.cause && risk.cause in RISK_KEYS ? t(RISK_KEYS[risk.cause], { key, ref: risk.ref }) : risk.message;
  }
}

const isRequestCode = (code: string) => (TOOL_REQUEST_CODES as readonly string[]).includes(code);
const isResultCode = (code: string) => (TOOL_RESULT_CODES as readonly string[]).includes(code);

/** What a tool call asked for: the server's English summary, or its words in another language. */
export function toolRequestText(summary: string, words: ToolWords | undefined): string {
  if (locale() === 'en' || !words || !isRequestCode(words.code)) return summary;
  return t(`workbenchDetails.toolRequest.${words.code}` as MessageKey, words.params);
}

/** What a tool call answered, likewise; a failure is its error code's message. */
export function toolResultText(summary: string, words: ToolWords | undefined): string {
  if (locale() === 'en' || !words || !isResultCode(words.code)) return summary;
  const p = words.params;
  switch (words.code) {
    case 'failed':
      return eventErrorText(String(p.code ?? ''), '').message;
    case 'valid':
      return Number(p.warnings) > 0 ? t('workbenchDetails.toolResult.valid', { count: Number(p.warnings) }) : t('workbenchDetails.toolResult.validClean');
    case 'invalid':
      return t('workbenchDetails.toolResult.invalid', {
        errors: t('workbenchDetails.toolResult.errors', { count: Number(p.errors) }),
        warnings: t('workbenchDetails.toolResult.warnings', { count: Number(p.warnings) }),
      });
    default:
      return t(`workbenchDetails.toolResult.${words.code}` as MessageKey, p);
  }
}

/** A prompt layer's title, by its fixed id. */
export function layerTitle(id: PromptLayerId, sent: string): string {
  return locale() === 'en' ? sent : t(`workbenchDetails.layers.${id}` as MessageKey);
}

/** What a context envelope key held: the server's line in English, the key's meaning otherwise. */
export function envelopeText(key: string, sent: string): string {
  if (locale() === 'en') return sent;
  return key in ENVELOPE_KEYS ? t(`workbenchDetails.envelope.${key}` as MessageKey) : sent;
}

const ENVELOPE_KEYS = {
  session_meta: 1,
  domain_profile: 1,
  normative_baseline: 1,
  target_snapshot: 1,
  dependency_digest: 1,
  tool_capabilities: 1,
  revision_info: 1,
} as const;

/** A tool line's summary: what it asked for, then (once answered) what came back. */
export function toolSummaryText(tool: { request: string; result: string | null; requestWords?: ToolWords; resultWords?: ToolWords }): string {
  const request = tool.request ? toolRequestText(tool.request, tool.requestWords) : '';
  if (tool.result === null) return request;
  const result = toolResultText(tool.result, tool.resultWords);
  return request ? `${request} → ${result}` : result;
}
