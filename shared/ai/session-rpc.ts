/**
 * The session object's RPC contract: what the Worker (its routes and the project channel) may call
 * on a session's Durable Object, with what it takes and answers. The class implements this
 * interface, so a drift breaks the build; the Worker reaches the object only through its binding,
 * typed by this file, and never imports the class (only worker/index.ts names it, to export it).
 */
import type { Locale } from '../i18n/locales.ts';
import type { Role } from '../api/common.ts';
import type {
  Approval,
  ApprovalOverride,
  ApplyResult,
  ChangesView,
  SessionView,
  StageResult,
} from '../api/ai-session-views.ts';
import type { CompareSide, CompareView, RestoreResult, VersionsTimelineView } from '../api/ai-versions.ts';
import type { RebaseResult, ResolveRebaseInput, ResolveRebaseResult } from '../api/ai-rebase.ts';
import type { GraphUndoInput, MessageAccepted, MessageInput, MessageWaited } from '../api/ai-sessions.ts';
import type { ChangeValidation } from './validation-result.ts';
import type { Outcome } from './outcome.ts';
import type { ProjectContext } from './overlay.ts';
import type { ProjectChannelMessage } from './project-channel.ts';
import type { SessionMeta, SessionStatus } from './session.ts';
import type { ToolEnvelope } from './tool-envelope.ts';
import type { Usage } from './turn.ts';
import type { SealedLlmProfile } from '../llm/types.ts';
import type { KeepInput, KeepMark, UndoInput, UndoResult } from '../api/ai-undo.ts';

export type {
  ApplyResult,
  FileDiff,
  SessionView,
  StageResult,
  TurnView,
  VersionView,
} from '../api/ai-session-views.ts';

export interface Actor {
  userId: string;
  name: string;
  role: Role;
  /** The interface language the person chose (the AI answers their messages in it); absent when never chosen. */
  locale?: Locale;
}

/** The revisions the client reviewed against (seed §5.2 `revisionBase`). */
export interface RevisionBase {
  workflowRevision?: number | undefined;
  agentsRevision?: number | undefined;
  assetsRevision?: number | undefined;
}

export interface ApplyRequest {
  changeSetId: string;
  /** The content hash the client reviewed; must equal the version's. */
  contentHash?: string | undefined;
  revisionBase?: RevisionBase | undefined;
}

/** Start a thread on lines `line`..`lineEnd` of a staged file (line null: the whole file), or reply to `threadId`. */
export interface CommentRequest {
  objectKey: string;
  line: number | null;
  lineEnd?: number | null | undefined;
  body: string;
  threadId?: string | undefined;
}

/** The version a reviewer saw: its id and content hash (the request is refused when either moved on). */
export interface ReviewedVersion {
  changeSetId: string;
  contentHash: string;
}

/**
 * What the Worker read for a message with the cookie, in the same query: the sender's saved AI
 * profile, its key still sealed (null: none saved). Absent: not read, the object reads it from D1.
 */
export interface MessagePreload {
  senderProfile?: SealedLlmProfile | null;
  /** The login the Worker checked this request's cookie for: the object keeps it, so the same login's next message needs no D1 read. */
  caller?: VerifiedCaller;
}

/**
 * A login the Worker checked against D1 for a request to this session (its cookie, the person's
 * role and, when read, their AI profile). The object keeps it (sockets/known-callers.ts) and lets the
 * same login's next message in without asking D1, for as long as the project channel told it of no
 * sign-out, role change or change to the person (and within a bounded age).
 */
export interface VerifiedCaller {
  /** The login's non-secret id (worker/auth/login-session-id.ts), derived from the cookie. */
  loginSession: string;
  /** When the Worker read the cookie and the role from D1 (ms since epoch), before the read. */
  readAt: number;
  /** When the login's cookie expires (ms since epoch). */
  expiresAt: number;
}

/** How a turn the caller waits for ended, or `ended: false` when the wait ran out first. */
export interface CreateSessionOptions {
  tokenBudget?: number | null;
  context?: ProjectContext;
  /** The creator's login and AI profile, read with who-is-asking: their first message needs no D1 read. */
  caller?: VerifiedCaller & { senderProfile?: SealedLlmProfile | null; role: Role; locale?: Locale };
}

export type TurnWait = { ended: false; outcome?: undefined } | { ended: true; outcome: MessageWaited };

/**
 * The RPC methods. Each one first checks that the object holds a session of `projectId` (else
 * AI_SESSION_NOT_FOUND); errors travel as data (Outcome), since classes do not cross RPC.
 */
export interface AiSessionRpc {
  /** `options.context`: the project context the Worker read with who-is-asking; the object keeps it instead of reading D1. */
  createSession(meta: SessionMeta, creatorName: string, userPrompt: string | null, options?: CreateSessionOptions): Promise<Outcome<{ lastSeq: number }>>;
  getState(projectId: string, options?: { messagesBefore?: number; messagesLimit?: number }): Promise<Outcome<SessionView>>;
  getChanges(projectId: string): Promise<Outcome<ChangesView>>;
  stage(projectId: string, actor: Actor, changeSet: unknown): Promise<Outcome<StageResult>>;
  validate(projectId: string, changeSetId: string | undefined): Promise<Outcome<ChangeValidation & { changeSetId: string; version: number }>>;
  discard(projectId: string, actor: Actor): Promise<Outcome<{ discarded: true }>>;
  apply(projectId: string, actor: Actor, request: ApplyRequest): Promise<Outcome<ApplyAnswer>>;
  cancel(projectId: string, actor: Actor): Promise<Outcome<{ status: SessionStatus }>>;
  sendMessage(projectId: string, actor: Actor, input: MessageInput, preload?: MessagePreload): Promise<Outcome<MessageAccepted>>;
  /**
   * A message from a login the object already knows (`loginSession`, from the cookie; the Worker
   * read nothing): accepted as `sendMessage` would when the object knows who it is, their role and
   * their AI profile, all still in force; null when it cannot tell or would refuse the message, and
   * the Worker asks D1 and answers the usual way (a refusal always comes from there).
   */
  sendKnownMessage(projectId: string, loginSession: string, input: MessageInput): Promise<Outcome<MessageAccepted | null>>;
  waitForTurn(projectId: string, turnId: string, timeoutMs: number): Promise<Outcome<TurnWait>>;
  stopTurn(projectId: string, actor: Actor): Promise<Outcome<{ turnId: string; status: 'stopped' }>>;
  resumeTurn(projectId: string, actor: Actor): Promise<Outcome<{ turnId: string; status: 'running' }>>;
  setTokenBudget(projectId: string, tokenBudget: number | null): Promise<Outcome<{ tokenBudget: number | null; sessionUsage: Usage }>>;
  comment(projectId: string, actor: Actor, input: CommentRequest): Promise<Outcome<{ threadId: string; commentId: string }>>;
  setThreadStatus(projectId: string, actor: Actor, threadId: string, status: 'open' | 'resolved'): Promise<Outcome<{ threadId: string; status: 'open' | 'resolved' }>>;
  approve(projectId: string, actor: Actor, input: ReviewedVersion): Promise<Outcome<{ changeSetId: string; approvals: Approval[] }>>;
  withdrawApproval(projectId: string, actor: Actor): Promise<Outcome<{ withdrawn: boolean }>>;
  /** "Request changes" on the version the reviewer saw: blocks Apply until approved, withdrawn or dismissed. */
  requestChanges(projectId: string, actor: Actor, input: ReviewedVersion & { body: string }): Promise<Outcome<{ changeSetId: string; requestId: string }>>;
  withdrawChangeRequest(projectId: string, actor: Actor): Promise<Outcome<{ withdrawn: number }>>;
  /** An owner dismisses someone's request for changes; the reason goes into the audit log. */
  dismissChangeRequest(projectId: string, actor: Actor, requestId: string, reason: string): Promise<Outcome<{ requestId: string; dismissed: true }>>;
  /** An owner lets the version they saw apply without the required approvals; the reason goes into the audit log. */
  overrideApprovals(projectId: string, actor: Actor, input: ReviewedVersion & { reason: string }): Promise<Outcome<ApprovalOverride>>;
  /** Move the draft onto the new baseline: a three-way merge per moved file; clean merges make one version, conflicts come back. */
  rebase(projectId: string, actor: Actor): Promise<Outcome<RebaseResult>>;
  /** A person's text for one conflicted file of a rebase, against the baseline revision the conflict was shown with. */
  resolveRebase(projectId: string, actor: Actor, input: ResolveRebaseInput): Promise<Outcome<ResolveRebaseResult>>;
  /** "Address the open comments": the open review threads become the next turn's task (editors and owners). */
  addressComments(projectId: string, actor: Actor): Promise<Outcome<MessageAccepted & { threadIds: string[] }>>;
  /** Undo one file or one hunk of the draft (editors and owners; refused during a turn, or when that part changed). */
  undoChange(projectId: string, actor: Actor, input: UndoInput): Promise<Outcome<UndoResult>>;
  /** Undo an earlier undo (the file must still hold what that undo left). */
  reapplyUndo(projectId: string, actor: Actor, undoId: string): Promise<Outcome<UndoResult>>;
  /** This person's "kept" (reviewed) marks on files and hunks; setting one changes no content. */
  setKeepMark(projectId: string, actor: Actor, input: KeepInput): Promise<Outcome<KeepMark[]>>;
  keepMarks(projectId: string, actor: Actor): Promise<Outcome<KeepMark[]>>;
  /** Undo one node or edge of a staged graph back to the stored package, as a new version in the caller's name. */
  undoGraphPart(projectId: string, actor: Actor, input: GraphUndoInput): Promise<Outcome<GraphUndoResult>>;
  /** A `builder.*` tool as the model calls it (the loop calls it in-process; tests call this). */
  tool(projectId: string, actor: Actor, name: string, args: unknown): Promise<ToolEnvelope>;
  /** The versions timeline (everyone on the session). */
  listVersions(projectId: string): Promise<Outcome<VersionsTimelineView>>;
  /** Per file that differs, its text in two versions (or the stored package). */
  compareVersions(projectId: string, from: CompareSide, to: CompareSide): Promise<Outcome<CompareView>>;
  /** Editors: the draft back to a version's checkpoint, as a new version. */
  restoreVersion(projectId: string, actor: Actor, version: number): Promise<Outcome<RestoreResult>>;
  /** The project channel (worker/live/project-channel.ts): a membership change or a sign-out; answers with the sockets told. */
  projectMessage(projectId: string, message: ProjectChannelMessage): Promise<{ sockets: number }>;
}

/** A stub of the object as the Worker holds it: the RPC methods plus `fetch`, which carries the socket upgrade. */
export interface AiSessionStub extends AiSessionRpc {
  fetch(request: Request): Promise<Response>;
}

/** What an undo of one graph node or edge made: the new version, and what was undone. */
export interface GraphUndoResult {
  changeSetId: string;
  version: number;
  contentHash: string;
  files: Array<{ key: string; action: 'A' | 'M' | 'D'; path?: string }>;
  undone: { kind: 'node' | 'edge'; id: string; was: 'added' | 'removed' | 'changed' };
}
/** The apply's answer to the Worker: the result, and the D1 bookmark of its write (for the user's next read; never in the HTTP body). */
export type ApplyAnswer = ApplyResult & { d1Bookmark?: string | null };
