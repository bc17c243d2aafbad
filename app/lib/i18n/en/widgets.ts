/** English: small parts used across pages — roles, issue counts, confirm buttons, load errors, validation. */
export const roles = {
  owner: 'owner',
  editor: 'editor',
  viewer: 'viewer',
} as const;

export const widgets = {
  projectsCrumb: 'Projects',
  projectNotFound: 'Project not found',
  couldNotOpenProject: 'Could not open the project',
  backToProjects: 'Back to your projects',
  projectFallbackTitle: 'Project',
  working: 'Working…',
  valid: 'valid',
  errors_one: '{{count}} error',
  errors_other: '{{count}} errors',
  warnings_one: '{{count}} warning',
  warnings_other: '{{count}} warnings',
  assetPathTaken: 'An asset already exists at {{path}}.',
  assetPathTakenHint: 'Choose another name or folder.',
  assetPathOk: '✓ A valid asset path.',
  assetPathRule: 'Under assets/, with the extension .md, .txt, .json, .yaml, .yml or .csv.',
  schemaFailed: 'A file does not follow the .bmad format yet (see below), so the package rules did not run.',
  readyToExport: 'Ready to export.',
  errorsBlockExport: 'Errors block the export.',
  checking: 'Checking…',
  checkAgain: 'Check again',
  couldNotValidate: 'Could not validate the package',
  noProblems: 'No problems: every file passes the .bmad v1.1 rules.',
  showFewer: 'Show fewer',
  showAllProblems: 'Show all {{count}} problems',
  history: 'History',
} as const;

export const editing = {
  conflictTitle: 'Someone saved a newer version — reload.',
  conflictRevision: 'The stored revision is now {{revision}}.',
  conflictBody: 'Your text stays in the editor: reload to update the base, check the changes, then save again.',
  reloading: 'Reloading…',
  reload: 'Reload',
  unsaved: 'Unsaved changes',
  savedRevision: 'Saved — revision {{revision}}',
  wholePackage: 'whole package:',
  serverChecked: 'The server checked the saved file (saving is not blocked by these):',
  severityError: 'error',
  severityWarning: 'warning',
  liveValidation: 'Live validation',
  noProblemsInFile: 'No problems in this file.',
  couldNotSave: 'Could not save {{path}}',
} as const;

export const mentions = {
  unread_one: '{{count}} unread mention',
  unread_other: '{{count}} unread mentions',
  button: '@ Mentions',
  failed: 'Mentions could not be loaded. Try again in a moment.',
  none: 'No unread mentions.',
  mentionedYouBy: 'mentioned you in {{project}}',
  theSession: 'the session',
  fileLine: '{{file}}, line {{line}}',
  open: 'Open {{where}}',
  gone: 'This session no longer exists.',
} as const;
