/**
 * Model prices and the estimated cost of token usage. People may spend a shared key, so every
 * call, turn and session carries an estimate beside its tokens. A model without a price has an
 * unknown cost (null), never a guessed one.
 *
 * Prices are USD per 1 million tokens, `input` for prompt tokens and `output` for completion
 * tokens. Operators add or override entries with the `LLM_PRICES_JSON` variable, e.g.
 * `{"gpt-4o-mini":{"input":0.15,"output":0.6},"qwen2.5:7b-instruct":{"input":0,"output":0}}`;
 * its entries are laid over DEFAULT_PRICES. Model ids match exactly (case and all), as the
 * provider reports them in its /v1/models list.
 */
import * as z from 'zod';

// How a cost is shown lives apart (cost-format.ts) for the Workbench's first load, which must not load zod.
export { formatCostUsd } from './cost-format.ts';

export const ModelPrice = z.strictObject({
  input: z.number().finite().min(0),
  output: z.number().finite().min(0),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

export const PriceTable = z.record(z.string().min(1).max(256), ModelPrice);
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * A small default table: the providers' list prices for the models our presets name, as
 * published when this table was written (2025, without cache discounts). Prices change: the
 * deployment's LLM_PRICES_JSON is where to keep them current.
 */
export const DEFAULT_PRICES: PriceTable = {
  // The offline demo model (`npm start`): no money is spent.
  'scripted-demo': { input: 0, output: 0 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'deepseek-chat': { input: 0.28, output: 0.42 },
  'openai/gpt-4o-mini': { input: 0.15, output: 0.6 },
};

export type PriceTableReading = { type: 'ok'; table: PriceTable } | { type: 'invalid'; table: PriceTable; problem: string };

/**
 * DEFAULT_PRICES with `LLM_PRICES_JSON` laid over it. A value that is not a valid table is
 * ignored as a whole (the defaults apply) and reported, so a typo never yields made-up prices.
 */
export function readPriceTable(json: string | undefined): PriceTableReading {
  const text = json?.trim() ?? '';
  if (text === '') return { type: 'ok', table: DEFAULT_PRICES };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { type: 'invalid', table: DEFAULT_PRICES, problem: 'LLM_PRICES_JSON is not valid JSON.' };
  }
  const parsed = PriceTable.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return {
      type: 'invalid',
      table: DEFAULT_PRICES,
      problem: `LLM_PRICES_JSON must map model ids to {"input": USD, "output": USD} per 1M tokens${where}.`,
    };
  }
  return { type: 'ok', table: { ...DEFAULT_PRICES, ...parsed.data } };
}

/** The estimated cost in USD of `usage` on `model`, or null when the model has no price. */
export function estimateCostUsd(
  table: PriceTable,
  model: string,
  usage: { promptTokens: number; completionTokens: number },
): number | null {
  const price = Object.hasOwn(table, model) ? table[model] : undefined;
  if (!price) return null;
  return (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1_000_000;
}
