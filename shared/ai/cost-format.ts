/**
 * How the Workbench shows an estimated cost (`pricing.ts` estimates it), without zod: the
 * Workbench's first load shows costs and must not load the schema library for that.
 */
/** "$0.0123", "< $0.0001", "$0.00" for free models, "unknown" without a price: how the Workbench shows a cost. */
export function formatCostUsd(cost: number | null | undefined): string {
  if (cost === null || cost === undefined) return 'unknown';
  if (cost === 0) return '$0.00';
  if (cost < 0.0001) return '< $0.0001';
  return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}
