/** English: the pages outside a project — home, the error page, the shell, the projects list. */
export const pages = {
  opening: 'Opening your projects…',
  notFound: 'Page not found',
  wentWrong: 'Something went wrong',
  nothingHere: 'There is nothing at this address.',
  couldNotShow: 'The page could not be shown. Try again in a moment.',
  goToProjects: 'Go to your projects',
  couldNotCheckSignIn: 'Could not check your sign-in',
  redirecting: 'Redirecting to sign in…',
} as const;

export const projects = {
  title: 'Projects',
  lead: 'Each project is one .bmad package: workflows, agents and assets.',
  yours: 'Your projects',
  total: '{{count}} total',
  couldNotLoad: 'Could not load your projects',
  empty: 'No projects yet — create your first',
  emptyHint: 'Give it a name on the right; you can describe its domain afterwards.',
  workflows_one: '{{count}} workflow',
  workflows_other: '{{count}} workflows',
  agentsRev: 'agents rev {{revision}}',
  assetsRev: 'assets rev {{revision}}',
  updated: 'updated {{date}}',
  newProject: 'New project',
  name: 'Name',
  description: 'Description',
  optional: '(optional)',
  couldNotCreate: 'Could not create the project',
  created: 'Created',
  creating: 'Creating…',
  create: 'Create project',
  importTitle: 'Import a package',
} as const;

export const network = {
  noUsableError: 'The server answered with status {{status}} and no usable error.',
  unreachable: 'The server could not be reached.',
  checkConnection: 'Check your connection and try again in a moment.',
  noReadableBody: 'The server answered with status {{status}} and no readable body.',
  tryAgain: 'Try again in a moment.',
  unexpectedForm: 'The server answered with status {{status}} in an unexpected form.',
} as const;
