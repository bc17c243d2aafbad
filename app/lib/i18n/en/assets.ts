/** English: assets (the tree, the editor, the assets page) and the line diff. */
export const assets = {
  title: 'Assets',
  meta: '{{size}} · updated {{date}} · assets revision {{revision}} ·',
  view: 'View',
  preview: 'Preview',
  edit: 'Edit',
  source: 'Source',
  optimizeAi: 'Optimize asset with AI',
  newAi: 'New asset with AI',
  rename: 'Rename…',
  renameSubmit: 'Rename',
  renaming: 'Renaming…',
  delete: 'Delete',
  deleteQuestion: 'Delete {{path}}?',
  deleting: 'Deleting…',
  newPath: 'New path',
  editorLabel: 'Asset {{path}}',
  couldNotChange: 'Could not change the asset',
} as const;

export const diff = {
  before: 'before',
  after: 'after',
  created: 'created',
  deleted: 'deleted',
  bothEmpty: 'Both versions are empty.',
  identical: 'No differences.',
  unchanged_one: '⋯ {{count}} unchanged line',
  unchanged_other: '⋯ {{count}} unchanged lines',
} as const;

export const assetsPage = {
  newAsset: 'New asset',
  path: 'Path',
  couldNotCreate: 'Could not create the asset',
  creating: 'Creating…',
  create: 'Create asset',
  content: 'Content',
  contentNote: '(optional; edit it after creating)',
  pick: 'Pick an asset',
  pickHintEdit: 'Choose a file in the tree to preview and edit it.',
  pickHint: 'Choose a file in the tree to preview it.',
  couldNotOpen: 'Could not open {{path}}',
} as const;
