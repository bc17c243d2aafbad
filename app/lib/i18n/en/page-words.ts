/**
 * Words of parts loaded after a page's first paint — the graph canvas (WorkflowGraphFlow, loaded
 * when the graph is shown) and the history page's override notes — kept out of the catalogue every
 * page loads (the sign-in page's budget); `page-words.ts` adds them where they are shown.
 */
export const pageWords = {
  graph: {
    edgeNoLabel: '(no label)',
    edgeDefaultLabel: '{{label}} · default',
    edgeAria: 'Edge from {{from}} to {{to}}: {{label}}',
  },
  history: {
    overridden: 'Approvals overridden',
    overriddenBy: '{{name}} overrode the required approvals for this AI change. Reason: “{{reason}}”',
  },
} as const;
