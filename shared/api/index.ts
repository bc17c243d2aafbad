/** The REST contracts shared by the Worker and the SPA. */
export * from './common.ts';
export * from './auth.ts';
export * from './projects.ts';
export * from './invitations.ts';
export * from './store.ts';
export * from './llm-profile.ts';
