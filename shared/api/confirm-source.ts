/**
 * The `confirmSource` an apply must carry: only the Workbench's Apply button sends it (the
 * Worker refuses any other with AI_APPLY_REQUIRES_CONFIRMATION). Without zod, for the Workbench's
 * first load; `ai-sessions.ts` re-exports it beside `ApplyInput`.
 */
export const CONFIRM_SOURCE = 'ui_manual_apply';
