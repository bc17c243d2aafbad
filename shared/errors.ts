/**
 * Every error code the product can return, with its HTTP status and a default message a
 * non-engineer understands. The codes are the original product's, plus the
 * few this rewrite needs (marked "ours"). The Worker, the session Durable Object and the SPA
 * all import this one table.
 */
export const ERROR_CODES = {
  // Generic request problems (ours)
  BAD_REQUEST: { status: 400, message: 'The request is not valid.' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  VALIDATION_FAILED: { status: 422, message: 'Some fields are missing or have the wrong value.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request is too large.' },
  NOT_FOUND: { status: 404, message: 'Nothing was found at this address.' },
  FORBIDDEN: { status: 403, message: 'You do not have permission to do that.' },
  FORBIDDEN_ORIGIN: { status: 403, message: 'This request came from another site and was refused.' },
  FORBIDDEN_FORM_POST: { status: 403, message: 'A change cannot be sent by a page form; it was refused.' },
  CONFLICT: { status: 409, message: 'That conflicts with the current state.' },
  REVISION_CONFLICT: {
    status: 409,
    message: 'Someone saved a newer version in the meantime. Reload to see it, then save again.',
  },
  RATE_LIMITED: { status: 429, message: 'Too many attempts. Wait a moment and try again.' },
  INTERNAL_ERROR: { status: 500, message: 'Something went wrong on our side. Try again in a moment.' },

  // Accounts (ours, beside the original's token codes)
  AUTH_MISSING_TOKEN: { status: 401, message: 'You are not signed in.' },
  AUTH_INVALID_TOKEN: { status: 401, message: 'Your sign-in is not valid. Sign in again.' },
  AUTH_TOKEN_EXPIRED: { status: 401, message: 'Your sign-in has expired. Sign in again.' },
  AUTH_INVALID_CREDENTIALS: { status: 401, message: 'The email or password is not correct.' },
  AUTH_EMAIL_TAKEN: { status: 409, message: 'An account with this email already exists.' },

  // Projects and members (ours)
  PROJECT_NOT_FOUND: { status: 404, message: 'This project does not exist, or you are not a member of it.' },
  MEMBER_NOT_FOUND: { status: 404, message: 'This person is not a member of the project.' },
  INVITATION_NOT_FOUND: {
    status: 404,
    message: 'This invitation does not exist: it was accepted, declined or withdrawn, or it is not addressed to you.',
  },
  INVITATION_EXPIRED: { status: 410, message: 'This invitation has expired.' },
  MEMBER_EXISTS: { status: 409, message: 'This person is already a member of the project.' },
  LAST_OWNER: { status: 409, message: 'A project needs at least one owner.' },

  // Package store (ours, beside WORKFLOW_NOT_FOUND / AGENT_NOT_FOUND)
  WORKFLOW_NOT_FOUND: { status: 404, message: 'This workflow does not exist.' },
  WORKFLOW_EXISTS: { status: 409, message: 'A workflow with this id already exists.' },
  STEP_NOT_FOUND: { status: 404, message: 'This step does not exist.' },
  AGENT_NOT_FOUND: { status: 404, message: 'This agent does not exist.' },
  ASSET_NOT_FOUND: { status: 404, message: 'This asset does not exist.' },
  ASSET_EXISTS: { status: 409, message: 'An asset with this path already exists.' },
  ASSET_INVALID_PATH: { status: 422, message: 'This asset path is not allowed.' },
  ASSET_TOO_LARGE: { status: 413, message: 'This asset is too large.' },
  ASSET_LIMIT_REACHED: { status: 422, message: 'The project has reached its asset limit.' },
  HISTORY_NOT_FOUND: { status: 404, message: 'This history entry does not exist.' },
  HISTORY_REVERT_CONFLICT: {
    status: 409,
    message: 'This change cannot be undone on its own: later edits changed the same lines. Nothing was written.',
  },
  GRAPH_EDIT_REFUSED: { status: 422, message: 'This change would break the workflow graph, so it was not saved.' },

  // Packages
  PKG_INVALID_FORMAT: { status: 400, message: 'This file is not a .bmad package.' },
  PKG_TOO_LARGE: { status: 413, message: 'This package is too large.' },
  PKG_INVALID_ZIP: { status: 400, message: 'This zip file is damaged or unsafe.' },
  // What an entry actually inflates to, checked against what the zip declares (ours)
  PKG_ENTRY_SIZE_MISMATCH: { status: 400, message: 'A file in the zip is not the size the zip says it is, so it was not unpacked.' },
  PKG_CRC_MISMATCH: { status: 400, message: 'A file in the zip is damaged: its checksum does not match its contents.' },
  PKG_ENTRY_TRUNCATED: { status: 400, message: 'A file in the zip is cut short; the zip is incomplete.' },
  PKG_VALIDATION_FAILED: { status: 422, message: 'The package has problems that must be fixed first.' },
  PKG_NAME_CONFLICT: { status: 409, message: 'A project with this name already exists.' },
  FILE_NOT_LOADABLE: { status: 422, message: 'This file would not load, so it was not saved.' },
  STEP_MISSING_FRONTMATTER: { status: 422, message: 'The step file has no frontmatter.' },
  STEP_INVALID_FRONTMATTER: { status: 422, message: 'The step frontmatter is not valid.' },
  STEP_MISSING_GOAL: { status: 422, message: 'The step has no "## Goal" section.' },
  STEP_MISSING_INSTRUCTIONS: { status: 422, message: 'The step has no "## Instructions" section.' },
  STEP_EMPTY_SECTION: { status: 422, message: 'A section of the step is empty.' },

  // LLM profile
  LLM_PROFILE_INVALID_PROVIDER: { status: 422, message: 'Choose a supported provider.' },
  LLM_PROFILE_MISSING_BASE_URL: { status: 422, message: 'Enter the base URL of the model server.' },
  LLM_PROFILE_MISSING_MODEL: { status: 422, message: 'Enter the model name.' },
  LLM_PROFILE_INVALID_TIMEOUT: { status: 422, message: 'The timeout must be between 5 and 600 seconds.' },
  LLM_PROFILE_ENCRYPTION_ERROR: { status: 500, message: 'The API key could not be stored or read safely.' },
  LLM_PROFILE_ORG_POLICY_BLOCKED: { status: 403, message: 'Your organisation does not allow this AI provider.' },
  AI_PROVIDER_ERROR: { status: 502, message: 'The AI provider answered with an error.' },
  AI_PROVIDER_TIMEOUT: { status: 504, message: 'The AI provider did not answer in time.' },
  AI_PROVIDER_UNREACHABLE: { status: 502, message: 'The AI provider could not be reached.' },
  AI_DISABLED: { status: 409, message: 'No AI model is available to you: set one up in Settings → AI.' },
  AI_MODEL_NO_TOOLS: { status: 422, message: 'The chosen model (or its server) does not support tool calling, which the AI workbench needs.' },

  // Prompt and tools
  AI_PROMPT_COMPOSE_ERROR: { status: 500, message: 'The instructions for the AI could not be prepared.' },
  AI_DOMAIN_PROFILE_INCOMPLETE: { status: 422, message: 'The project domain profile is incomplete.' },
  AI_CONTEXT_BUILD_ERROR: { status: 500, message: 'The context for the AI could not be prepared.' },
  AI_CONTEXT_BUDGET_EXCEEDED: { status: 422, message: 'The context is too large for this model.' },
  AI_TOOL_NOT_ALLOWED: { status: 400, message: 'The AI asked for a tool it may not use.' },
  AI_TOOL_FORBIDDEN: { status: 403, message: 'The AI may not do that; only a person can.' },
  AI_TOOL_EXECUTION_ERROR: { status: 500, message: 'A tool failed while the AI was using it.' },
  AI_TOOL_LOOP_LIMIT_EXCEEDED: { status: 422, message: 'The AI took too many steps and was stopped.' },
  AI_TOOL_ARGUMENTS_UNREADABLE: { status: 502, message: "The AI's tool calls could not be read, so it could not work on the files." },
  AI_TOOL_ARGUMENTS_INVALID: { status: 422, message: 'The AI called a tool with arguments that do not fit it; it was told which field to correct.' },

  // changeSet and apply
  AI_BAD_RESPONSE: { status: 502, message: 'The AI answered in a form that could not be used.' },
  AI_CHANGESET_SCHEMA_UNSUPPORTED: { status: 422, message: 'This change set version is not supported.' },
  AI_CHANGESET_CONTRACT_VIOLATION: { status: 422, message: 'The change set breaks the rules for this target.' },
  AI_IMPACT_DISAGREES: { status: 422, message: 'The declared impact differs from what the change set changes; the system-derived impact is used.' },
  AI_CROSS_OBJECT_CHANGE: { status: 422, message: 'The change touches an object outside the session\'s target.' },
  AI_NO_CHANGES_STAGED: { status: 422, message: 'The AI said it made changes, but nothing was staged.' },
  AI_SUGGEST_ONLY_NO_CHANGES: {
    status: 422,
    message: 'The AI said it made changes, but this turn was "Suggest only": it could not change any file, and nothing was changed.',
  },
  AI_FINAL_CHANGE_NOT_STAGED: { status: 422, message: "The AI's last change could not be staged; the draft keeps the version staged before it." },
  AI_OBJECT_KEY_AMBIGUOUS: { status: 422, message: 'A short object key names more than one object.' },
  AI_NO_STAGED_CHANGES: { status: 409, message: 'There are no staged changes.' },
  AI_VALIDATION_FAILED: { status: 422, message: 'The staged changes did not pass validation.' },
  AI_APPLY_REQUIRES_CONFIRMATION: { status: 400, message: 'Changes are applied only by a person, from the workbench.' },
  AI_APPLY_UNSUPPORTED: { status: 422, message: 'This kind of change cannot be applied.' },
  AI_APPLY_FAILED: { status: 500, message: 'The changes could not be applied; nothing was changed.' },
  AI_REVISION_BASE_MISMATCH: { status: 409, message: 'The package changed since these changes were prepared.' },

  // Session
  AI_TARGET_CONTEXT_REQUIRED: { status: 422, message: 'Choose what the AI should work on.' },
  AI_TARGET_CONTEXT_MISMATCH: { status: 422, message: 'The target does not match this session.' },
  AI_TARGET_NOT_SUPPORTED: { status: 422, message: 'The AI cannot work on this kind of target.' },
  AI_SESSION_NOT_FOUND: { status: 404, message: 'This AI session does not exist.' },
  // Session, review and live channel (ours)
  AI_SESSION_CLOSED: { status: 409, message: 'This AI session was cancelled; start a new one to continue.' },
  AI_SESSION_BUSY: { status: 409, message: 'The session is applying changes right now. Try again in a moment.' },
  AI_CHANGESET_NOT_FOUND: { status: 404, message: 'This version of the staged changes does not exist.' },
  AI_CHANGESET_STALE: {
    status: 409,
    message: 'The staged changes were edited after this version. Review the latest version, then apply it.',
  },
  AI_CHANGESET_ALREADY_APPLIED: { status: 409, message: 'This version of the changes has already been applied.' },
  AI_APPROVALS_REQUIRED: { status: 409, message: 'This project needs more approvals before the changes can be applied.' },
  AI_COMMENT_NOT_FOUND: { status: 404, message: 'This comment thread does not exist.' },
  AI_COMMENT_LINE_GONE: {
    status: 409,
    message: 'That line is not in the staged draft any more. Reload the changes and comment on the lines as they are now.',
  },
  AI_COMMENT_TOO_LARGE: { status: 413, message: 'This comment is too long.' },
  AI_NO_OPEN_THREADS: { status: 409, message: 'There are no open review comments for the AI to address.' },
  AI_APPROVAL_NOT_ALLOWED: {
    status: 403,
    message: 'People who asked for a change or edited it cannot approve it; someone else reviews it.',
  },
  AI_CHANGES_REQUESTED: {
    status: 409,
    message: 'Someone asked for changes; apply waits until they approve a later version or withdraw, or an owner dismisses the request.',
  },
  AI_HUNK_CHANGED: {
    status: 409,
    message: 'That part of the draft changed since you saw it (someone edited it), so it was not undone. Reload the changes and try again.',
  },
  AI_UNDO_NOT_FOUND: { status: 404, message: 'This undo does not exist in the session.' },
  AI_CHANGE_REQUEST_NOT_FOUND: { status: 404, message: 'There is no open request for changes with this id.' },
  // The AI turn (ours)
  AI_TURN_IN_PROGRESS: {
    status: 409,
    message: 'The AI is still working on the previous message. Wait for it to finish, or stop it.',
  },
  AI_TURN_NOT_RUNNING: { status: 409, message: 'The AI is not working on anything right now.' },
  AI_TURN_INTERRUPTED: { status: 500, message: 'The AI was interrupted (the server restarted) and could not continue.' },
  AI_TOKEN_BUDGET_EXCEEDED: { status: 409, message: 'This session has used its token budget, so the AI paused.' },
  AI_TURN_WAIT_INTERRUPTED: {
    status: 503,
    message: 'The session restarted while you were waiting; the AI turn carries on. Read the session to see how it ended.',
  },
  AI_TURN_NOT_FOUND: { status: 404, message: 'This AI turn does not exist in the session.' },
  PROTOCOL_ERROR: { status: 400, message: 'The live connection sent a message the server does not understand.' },
  FRAME_TOO_LARGE: { status: 413, message: 'A live message was too large; large contents are loaded separately.' },
  YJS_MALFORMED: { status: 400, message: 'An edit to the staged files could not be read, so it was not applied.' },
  YJS_FORBIDDEN_CHANGE: { status: 403, message: 'That edit to the staged files is not allowed.' },
  YJS_TOO_LARGE: { status: 413, message: 'That edit would make a staged file too large.' },
  // Undo of one node or edge of a graph diff (ours)
  AI_UNDO_NOTHING: { status: 409, message: 'That part of the graph is the same as in the stored package, so there is nothing to undo.' },
  AI_UNDO_UNPARSABLE: { status: 422, message: 'The graph does not parse, so one node or edge cannot be undone; undo the whole file or fix it.' },
  AI_UNDO_CONFLICT: { status: 409, message: 'This edge cannot come back while a node it connects is missing from the draft.' },
  AWARENESS_REFUSED: { status: 400, message: 'Your cursor information was not accepted, so it was not shared.' },
  MEMBERSHIP_REVOKED: { status: 403, message: 'You are no longer a member of this project.' },
  SIGNED_OUT: { status: 401, message: 'You signed out, so this live connection was closed.' },
  TOO_MANY_SOCKETS: { status: 429, message: 'You have this session open in too many tabs or windows, so this one was not connected.' },
  SESSION_FULL: { status: 429, message: 'Too many connections are open on this session right now, so this one was not connected.' },
  SOCKET_REPLACED: { status: 409, message: 'You opened this session in another tab or window while all your connections to it were in use, so this one was closed.' },
  // Checkpoints of the draft (compare and restore)
  AI_CHECKPOINT_NOT_FOUND: { status: 404, message: 'This version has no checkpoint to compare or restore.' },
  AI_RESTORE_TURN_RUNNING: {
    status: 409,
    message: 'The AI is working on this draft; a checkpoint can be restored once its turn has ended (or been stopped).',
  },
  // Moving a draft onto a new baseline (ours)
  AI_REBASE_NOT_NEEDED: { status: 409, message: 'The project has not changed under these staged files, so there is nothing to move.' },
  AI_REBASE_FILE_NOT_MOVED: {
    status: 409,
    message: 'This file is not a staged file whose baseline moved, so there is no conflict to resolve for it.',
  },
  AI_REBASE_STALE: {
    status: 409,
    message: 'The project changed again since this conflict was shown. Move the draft onto the new baseline again.',
  },
  AI_REBASE_TOO_LARGE: { status: 413, message: 'The resolved file is too large.' },
  MENTION_NOT_FOUND: { status: 404, message: 'This mention does not exist, or it was not addressed to you.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/** One entry of `details[]`: a precise problem, e.g. a field or a file inside a package. */
export interface ErrorDetail {
  path?: string;
  pointer?: string;
  message: string;
  hint?: string;
  code?: string;
  /** A VALIDATION_FAILED detail: zod's bounds and format, so an app can word the problem itself. */
  minimum?: number;
  maximum?: number;
  format?: string;
  origin?: string;
  /** A package issue's values (ids, paths, counts) for the app's catalogue words of its code. */
  params?: Record<string, string | number>;
}

/** The error half of the `{data, error}` envelope every API response uses. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  hints?: string[];
  details?: ErrorDetail[];
  [extra: string]: unknown;
}

export type Envelope<T> = { data: T; error: null } | { data: null; error: ErrorBody };
