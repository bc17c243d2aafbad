/** The routes' preloads (auth/preload.ts), which requireUser sends with who-is-asking on `/api/projects/*`. */
import type { Preload } from '../auth/preload.ts';
import { graphSavePreload, stepSavePreload, workflowMdSavePreload } from './workflows.ts';
import { createSessionPreload, senderProfilePreload } from './ai-sessions.ts';
import { agentSavePreload } from './agents.ts';

export const ROUTE_PRELOADS = [createSessionPreload, senderProfilePreload, stepSavePreload, workflowMdSavePreload, graphSavePreload, agentSavePreload] as readonly Preload<unknown>[];
