import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, estimateCostUsd, formatCostUsd, readPriceTable } from './pricing.ts';
import { addUsage, costOf, ZERO_USAGE } from './turn.ts';

describe('readPriceTable', () => {
  it('uses the default table when LLM_PRICES_JSON is unset or blank', () => {
    expect(readPriceTable(undefined)).toEqual({ type: 'ok', table: DEFAULT_PRICES });
    expect(readPriceTable('  ')).toEqual({ type: 'ok', table: DEFAULT_PRICES });
    expect(DEFAULT_PRICES['gpt-4o-mini']).toEqual({ input: 0.15, output: 0.6 });
    expect(DEFAULT_PRICES['scripted-demo']).toEqual({ input: 0, output: 0 });
  });

  it('lays the configured entries over the defaults', () => {
    const reading = readPriceTable('{"gpt-4o-mini":{"input":0.2,"output":0.8},"qwen2.5:7b-instruct":{"input":0,"output":0}}');
    expect(reading.type).toBe('ok');
    expect(reading.table['gpt-4o-mini']).toEqual({ input: 0.2, output: 0.8 });
    expect(reading.table['qwen2.5:7b-instruct']).toEqual({ input: 0, output: 0 });
    expect(reading.table['deepseek-chat']).toEqual(DEFAULT_PRICES['deepseek-chat']);
  });

  it('ignores a table that is not valid JSON or not a price table, and says why', () => {
    for (const bad of ['{gpt', '[]', '{"m":{"input":-1,"output":1}}', '{"m":{"input":1}}', '{"m":{"input":"1","output":2}}', '{"m":{"input":1,"output":2,"cached":1}}']) {
      const reading = readPriceTable(bad);
      expect(reading.type).toBe('invalid');
      expect(reading.table).toBe(DEFAULT_PRICES);
      expect(reading.type === 'invalid' && reading.problem).toMatch(/LLM_PRICES_JSON/);
    }
  });
});

describe('estimateCostUsd', () => {
  it('prices prompt tokens at the input rate and completion tokens at the output rate, per 1M tokens', () => {
    const table = { m: { input: 2, output: 10 } };
    expect(estimateCostUsd(table, 'm', { promptTokens: 1_000_000, completionTokens: 0 })).toBe(2);
    expect(estimateCostUsd(table, 'm', { promptTokens: 500_000, completionTokens: 100_000 })).toBeCloseTo(2, 12);
    expect(estimateCostUsd(DEFAULT_PRICES, 'gpt-4o-mini', { promptTokens: 1200, completionTokens: 80 })).toBeCloseTo((1200 * 0.15 + 80 * 0.6) / 1e6, 15);
  });

  it('answers null, never a number, for a model without a price (ids match exactly)', () => {
    expect(estimateCostUsd(DEFAULT_PRICES, 'llama3.1', { promptTokens: 10, completionTokens: 10 })).toBeNull();
    expect(estimateCostUsd(DEFAULT_PRICES, 'GPT-4O-MINI', { promptTokens: 10, completionTokens: 10 })).toBeNull();
    expect(estimateCostUsd(DEFAULT_PRICES, 'toString', { promptTokens: 10, completionTokens: 10 })).toBeNull();
  });

  it('costs nothing on the scripted demo model', () => {
    expect(estimateCostUsd(DEFAULT_PRICES, 'scripted-demo', { promptTokens: 5000, completionTokens: 700 })).toBe(0);
  });
});

describe('formatCostUsd', () => {
  it('shows unknown for a missing estimate and small amounts without rounding them to zero', () => {
    expect(formatCostUsd(null)).toBe('unknown');
    expect(formatCostUsd(undefined)).toBe('unknown');
    expect(formatCostUsd(0)).toBe('$0.00');
    expect(formatCostUsd(0.00004)).toBe('< $0.0001');
    expect(formatCostUsd(0.01234)).toBe('$0.0123');
    expect(formatCostUsd(12.345)).toBe('$12.35');
  });
});

describe('usage with cost', () => {
  const call = (estimatedCostUsd: number | null) => ({ promptTokens: 10, completionTokens: 5, totalTokens: 15, calls: 1, estimatedCostUsd });

  it('sums the cost of calls and keeps an unknown cost unknown', () => {
    const two = addUsage(addUsage(ZERO_USAGE, call(0.5)), call(0.25));
    expect(two).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30, calls: 2, estimatedCostUsd: 0.75 });
    expect(addUsage(two, call(null)).estimatedCostUsd).toBeNull();
    expect(addUsage(addUsage(ZERO_USAGE, call(null)), call(1)).estimatedCostUsd).toBeNull();
  });

  it('reads usage stored before costs existed: no calls cost 0, calls without an estimate are unknown', () => {
    expect(costOf({ promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0 })).toBe(0);
    expect(costOf({ promptTokens: 9, completionTokens: 1, totalTokens: 10, calls: 1 })).toBeNull();
    expect(addUsage({ promptTokens: 9, completionTokens: 1, totalTokens: 10, calls: 1 }, call(1)).estimatedCostUsd).toBeNull();
  });
});
