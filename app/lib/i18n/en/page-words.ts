/**
 * Words of parts loaded after a page's first paint — the graph canvas (WorkflowGraphFlow, and graph-edit.ts for a refused edit; loaded
 * when the graph is shown) and the history page's override notes — kept out of the catalogue every
 * page loads (the sign-in page's budget); `page-words.ts` adds them where they are shown.
 */
export const pageWords = {
  graph: {
    /** A canvas edit's problem (shared/bmad/graph-edit-rules.ts), by its code: the English words are the Worker's. */
    problem: {
      notJson: 'The new graph is not valid JSON.',
      schema: 'The graph would not satisfy the schema at {{pointer}}: {{detail}}',
      duplicateId: 'Two steps have the id “{{id}}”.',
      startDeleted: '“{{id}}” is the start step and cannot be deleted. Make another step the start first.',
      startMissing: 'The start step “{{id}}” is not a step of the graph.',
      edgeFromMissing: 'The edge “{{label}}” starts at “{{id}}”, which is not a step of the graph.',
      edgeToMissing: 'The edge “{{label}}” points to “{{id}}”, which is not a step of the graph.',
      noStepFileToDelete: 'There is no step file for “{{id}}” to delete.',
      stepFileInGraph: 'The step file of “{{id}}” cannot be deleted while its step is in the graph.',
      stepFileExists: 'A step file for “{{id}}” already exists.',
      stepFileNeedsNode: 'A step file for “{{id}}” needs a step of that id in the graph.',
      stepPathNotAllowed: 'The step file path “{{path}}” is not allowed: use a relative path ending in .md.',
      stepPathTaken: 'The file {{path}} already belongs to another step.',
    },
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
