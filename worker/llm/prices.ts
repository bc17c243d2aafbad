/**
 * The deployment's model prices: `LLM_PRICES_JSON` (wrangler.toml [vars]) over the default table
 * (shared/ai/pricing.ts). Read per use, so a changed variable applies without a restart; parsed
 * once per distinct value, and a value that is not a valid table is reported once, for operators.
 */
import { readPriceTable, type PriceTable } from '../../shared/ai/pricing.ts';
import type { LlmVars } from './llm-vars.ts';

let cached: { json: string | undefined; table: PriceTable } | undefined;

export function pricesFromEnv(env: Pick<LlmVars, 'LLM_PRICES_JSON'>): PriceTable {
  if (cached && cached.json === env.LLM_PRICES_JSON) return cached.table;
  const reading = readPriceTable(env.LLM_PRICES_JSON);
  if (reading.type === 'invalid') console.warn('llm prices ignored', { problem: reading.problem });
  cached = { json: env.LLM_PRICES_JSON, table: reading.table };
  return reading.table;
}
