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
    /** Svelte Flow's own words: the zoom controls, the help read for a focused node or edge, its move message. */
    controls: 'Graph view controls',
    zoomIn: 'Zoom in',
    zoomOut: 'Zoom out',
    fitView: 'Fit the whole graph in view',
    handle: 'Connection point',
    nodeHelp: 'Press Enter or Space to open the step. Arrow keys move a selected step, Delete removes it, Escape cancels.',
    edgeHelp: 'Press Enter or Space to edit the edge. Delete removes it, Escape cancels.',
    moved: 'Moved the step {{direction}}. New position: x {{x}}, y {{y}}.',
    directions: { left: 'left', right: 'right', up: 'up', down: 'down' },
  },
  history: {
    overridden: 'Approvals overridden',
    overriddenBy: '{{name}} overrode the required approvals for this AI change. Reason: “{{reason}}”',
  },
} as const;
