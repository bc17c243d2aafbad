/** The routes' preloads (auth/preload.ts), which requireUser sends with who-is-asking on `/api/projects/*`. */
import type { Preload } from '../auth/preload.ts';
import { stepSavePreload } from './workflows.ts';
import { createSessionPreload } from './ai-sessions.ts';

export const ROUTE_PRELOADS: readonly Preload<unknown>[] = [createSessionPreload as Preload<unknown>, stepSavePreload as Preload<unknown>];
