/**
 * The English catalogue: every word the interface shows, by area. The reference the other
 * catalogues are typed against (`catalogue.ts`). Placeholders are `{{name}}`; a key with `_one`
 * and `_other` forms is one key chosen by `count`. Every page loads this catalogue, so the areas
 * only some pages show (the Workbench's, the graph's, the AI settings', the history's, the agents'
 * and assets' pages', importing's) are not here: their `*-words.ts` modules add them where shown.
 */
import { forms } from './en/forms.ts';
import { editing, mentions, roles, widgets } from './en/widgets.ts';
import { membersPage, overview, project, projectSettings, sessionsPage } from './en/project.ts';
import { network, pages, projects } from './en/pages.ts';
import { workbenchAddress } from './en/workbench-address.ts';

export const en = {
  workbenchAddress,
  pages,
  network,
  projects,
  project,
  overview,
  projectSettings,
  membersPage,
  sessionsPage,
  roles,
  mentions,
  editing,
  widgets,
  forms,
  common: {
    product: 'CrewAgent Builder',
    productSuffix: 'AI Workbench',
    pageTitle: '{{page}} · CrewAgent Builder',
    cancel: 'Cancel',
    close: 'Close',
    save: 'Save',
    saving: 'Saving…',
    loading: 'Loading…',
    retry: 'Try again',
    continue: 'Continue',
    error: 'Error',
    hint: 'Hint',
  },
  topBar: {
    mainNav: 'Main',
    projects: 'Projects',
    aiSettings: 'AI settings',
    signOut: 'Sign out',
    signingOut: 'Signing out…',
    language: 'Language',
    couldNotSignOut: 'Could not sign out: {{message}}',
  },
  login: {
    title: 'Sign in',
    lead: 'Edit your .bmad workflow packages with an AI assistant.',
    signedInAs: 'You are signed in as',
    email: 'Email',
    password: 'Password',
    submit: 'Sign in',
    submitting: 'Signing in…',
    noAccount: 'No account yet?',
    createOne: 'Create one',
  },
  register: {
    title: 'Create an account',
    lead: 'You will own the projects you create and can invite others.',
    name: 'Name',
    email: 'Email',
    password: 'Password',
    passwordHint: 'At least 10 characters.',
    submit: 'Create account',
    submitting: 'Creating account…',
    haveAccount: 'Already have an account?',
    signIn: 'Sign in',
  },
  time: {
    justNow: 'just now',
  },
  contentLanguage: {
    label: 'Content language',
    hint: 'The language this package is written in. The AI writes staged content in it and answers each person in their own language. Detected on import.',
    readonly: 'Content is written in {{language}}.',
    save: 'Save',
    saving: 'Saving…',
    saved: 'Saved.',
    notSaved: 'Not saved',
  },
} as const;
