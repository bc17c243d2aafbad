/**
 * The SPA's one typed client for the Worker's REST API (/api/*). Every page and store calls the
 * server through this module; nothing else uses `fetch` against /api.
 *
 * Expected failures are values: each call resolves to `{ok: true, data}` or
 * `{ok: false, error, status}` (the `{data, error}` envelope of shared/errors.ts). A request
 * that never reached the server, or an answer that is not the envelope, becomes an
 * `INTERNAL_ERROR` value with status 0 (or the HTTP status), so pages can always show a message.
 * A 401 that means "no valid sign-in" also sends the user to /login?next=… (see `onUnauthorized`).
 */
import { localError, unreachableError } from './local-error.ts';
import { locale } from './i18n/i18n.svelte.ts';
import type { MessageKey } from './i18n/catalogue.ts';
import type { Locale } from '../../shared/i18n/locales.ts';
import { serverError } from './server-error.ts';
import { goto } from '$app/navigation';
import { navigating } from '$app/state';
import { D1_BOOKMARK_HEADER, parseBookmark } from '../../shared/d1-bookmark.ts';
import type { ErrorBody, ErrorCode, ErrorDetail } from '../../shared/errors.ts';
import { safeNextPath } from './safe-next-path.ts';
import { attachmentFileName } from './attachment-name.ts';
import type { GraphEditInput } from '../../shared/api/graph-edit.ts';
import type {
  AddMemberInput,
  AgentsView,
  AssetsView,
  AssetView,
  CreateProjectInput,
  CreateWorkflowInput,
  DomainProfile,
  HistoryEntryDetailView,
  HistoryEntryView,
  InvitationView,
  LoginInput,
  MemberView,
  ProjectView,
  PutAgentInput,
  PutAssetInput,
  PutStepInput,
  PutTextInput,
  RegisterInput,
  RenameAssetInput,
  RestoreBeforeInput,
  RevertInput,
  RevertResult,
  StepView,
  UpdateMemberInput,
  UpdateProjectInput,
  UpdateWorkflowInput,
  UserView,
  UpdateMeInput,
  WorkflowSummaryView,
  WorkflowView,
  WriteResult,
} from '../../shared/api/index.ts';
import type { ValidationIssue, ValidationReport } from '../../shared/bmad/index.ts';
import type { ImportLayout, ImportPreview } from '../../shared/bmad-method/preview.ts';

export type ApiResult<T> = { ok: true; data: T } | { ok: false; error: ErrorBody; status: number };

/**
 * What a write answers: the new revision and the file-level validation of what was saved.
 * Saving is never blocked by these issues; editors show them. (`issues` is absent on Workers
 * older than the validation-on-write change, hence optional.)
 */
export type SaveResult = WriteResult & { issues?: ValidationIssue[]; packageIssues?: PackageIssueCounts };

/** Error and warning counts over the whole stored package after a save. */
export interface PackageIssueCounts {
  errors: number;
  warnings: number;
}

/** `GET /projects/:id/validation`: the whole stored package through the pipeline. */
export interface ValidationView {
  report: ValidationReport;
}

/** A downloaded `.bmad` export: the zip, its file name, and how many warnings it carries. */
export interface ExportedPackage {
  blob: Blob;
  fileName: string;
  warnings: number;
  /** The warnings themselves, when the server sent them in `x-bmad-warnings-json` (they are also in the zip's WARNINGS.md). */
  warningList: Array<{ code: string; path: string; message: string }>;
}

/** `POST /projects/import`: the new project and the package's warnings. */
export interface ImportedPackage {
  project: ProjectView;
  warnings: ValidationIssue[];
}

/** The 401 codes that mean "sign in again" (a wrong password is AUTH_INVALID_CREDENTIALS and is not one). */
const SESSION_CODES: ReadonlySet<ErrorCode> = new Set(['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN', 'AUTH_TOKEN_EXPIRED']);

/** Pages a signed-out user may see; a 401 there is not redirected again. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/login', '/register']);

export type FetchLike = typeof globalThis.fetch;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  query?: Query;
  /** Sent as JSON, or as multipart/form-data when it is a `FormData`. */
  body?: unknown;
  /** `true` for calls that probe the sign-in (`/auth/me`): a 401 is returned, not redirected. */
  anonymous?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Sign-in expiry

type UnauthorizedListener = (error: ErrorBody) => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Be told when a call came back 401 "sign in again" (the session store clears its user). */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** `/login?next=<path>`; `next` is kept only when it is a same-site page worth returning to. */
export function loginHref(next?: string): string {
  const path = safeNextPath(next, '');
  const pathname = path.split(/[?#]/)[0] ?? '';
  if (path === '' || pathname === '/' || PUBLIC_PATHS.has(pathname)) return '/login';
  return `/login?next=${encodeURIComponent(path)}`;
}

export { safeNextPath };

function handleUnauthorized(error: ErrorBody): void {
  for (const listener of unauthorizedListeners) listener(error);
  // During a navigation the page being opened is the one to come back to, not the current one;
  // on the first load of the app there is no navigation yet and `location` is the page asked for.
  const target = navigating.to?.url ?? new URL(window.location.href);
  if (PUBLIC_PATHS.has(target.pathname)) return;
  void goto(loginHref(target.pathname + target.search), { replaceState: true });
}

// ---------------------------------------------------------------------------------------------
// Transport

/** A failure the client words itself, read in the language shown when it is shown. */
function failure(status: number, key: MessageKey, hintKeys?: MessageKey[]): ApiResult<never> {
  return { ok: false, status, error: localError('INTERNAL_ERROR', key, { status }, hintKeys) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the envelope's error half; anything unexpected still yields a readable message. */
function readError(status: number, value: unknown, sentIn: Locale): ErrorBody {
  if (isRecord(value) && typeof value.code === 'string' && typeof value.message === 'string') {
    return serverError({ ...value, code: value.code, message: value.message }, sentIn);
  }
  return localError('INTERNAL_ERROR', 'network.noUsableError', { status });
}

function buildUrl(path: string, query: Query | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) search.set(key, String(value));
  }
  const qs = search.toString();
  return `/api${path}${qs ? `?${qs}` : ''}`;
}

// Its words are read when shown, so a language switch translates an error already on the page.
const UNREACHABLE = (): ApiResult<never> => ({ ok: false, status: 0, error: unreachableError() });

/** The newest D1 bookmark the Worker answered, sent back so this tab reads its own writes from any replica. */
let d1Bookmark: string | null = null;

async function send(fetchFn: FetchLike, method: Method, path: string, options: RequestOptions, accept: string): Promise<Response | null> {
  const headers: Record<string, string> = { accept };
  if (d1Bookmark) headers[D1_BOOKMARK_HEADER] = d1Bookmark;
  let body: string | FormData | undefined;
  if (options.body instanceof FormData) {
    // The browser writes the multipart boundary into the content type itself.
    body = options.body;
  } else if (options.body !== undefined) {
    // The Worker accepts state-changing bodies only as JSON (worker/http/validate.ts).
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  try {
    const response = await fetchFn(buildUrl(path, options.query), { method, headers, body, credentials: 'same-origin' });
    d1Bookmark = parseBookmark(response.headers.get(D1_BOOKMARK_HEADER)) ?? d1Bookmark;
    return response;
  } catch {
    return null;
  }
}

/**
 * The one JSON transport of the app: `/api` + path, JSON body, same-origin credentials, the
 * `{data, error}` envelope read into an `ApiResult`, and a 401 "sign in again" sent to the login
 * page. The typed clients (this file, llm-profile-api.ts, workbench/sessions-api.ts) all use it.
 */
export async function request<T>(fetchFn: FetchLike, method: Method, path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
  // The Worker answers errors in the language of the cookie sent, the one shown when sending.
  const sentIn = locale();
  const response = await send(fetchFn, method, path, options, 'application/json');
  if (!response) return UNREACHABLE();
  return readEnvelope<T>(response, options, sentIn);
}

async function readEnvelope<T>(response: Response, options: RequestOptions, sentIn: Locale): Promise<ApiResult<T>> {
  let payload: unknown;
  try {
    payload = await response.json();
  } catch {
    return failure(response.status, 'network.noReadableBody', ['network.tryAgain']);
  }

  // The data half is typed by the shared contracts the Worker itself is written against; the
  // client checks the envelope's shape and trusts its own server for the rest.
  if (!isRecord(payload) || !('data' in payload) || !('error' in payload)) {
    return failure(response.status, 'network.unexpectedForm');
  }
  if (response.ok && payload.error === null) {
    return { ok: true, data: payload.data as T };
  }

  const error = readError(response.status, payload.error, sentIn);
  if (response.status === 401 && SESSION_CODES.has(error.code) && !options.anonymous) handleUnauthorized(error);
  return { ok: false, error, status: response.status };
}

/** A file download: the body as a Blob on success, the usual error value otherwise. */
async function download(fetchFn: FetchLike, path: string, fallbackName: string): Promise<ApiResult<ExportedPackage>> {
  const sentIn = locale();
  const response = await send(fetchFn, 'GET', path, {}, 'application/zip, application/json');
  if (!response) return UNREACHABLE();
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || type.includes('application/json')) return readEnvelope<never>(response, {}, sentIn);
  const warnings = Number(response.headers.get('x-bmad-warnings') ?? '0');
  let warningList: ExportedPackage['warningList'] = [];
  try {
    const listed: unknown = JSON.parse(decodeURIComponent(response.headers.get('x-bmad-warnings-json') ?? '[]'));
    if (Array.isArray(listed)) warningList = listed as ExportedPackage['warningList'];
  } catch {
    // A malformed header only loses the list; the zip's WARNINGS.md still has it.
  }
  return {
    ok: true,
    data: {
      blob: await response.blob(),
      fileName: attachmentFileName(response.headers.get('content-disposition'), fallbackName),
      warnings: Number.isFinite(warnings) ? warnings : 0,
      warningList,
    },
  };
}

export { apiErrorMessage, currentRevision, fieldErrors, suggestedName } from './api-errors.ts';

// ---------------------------------------------------------------------------------------------
// Endpoints

const seg = encodeURIComponent;

/** The API bound to one `fetch` (a `load` function's, or the browser's). */
export function createApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const call = <T>(method: Method, path: string, options?: RequestOptions) => request<T>(fetchFn, method, path, options);
  const project = (projectId: string) => `/projects/${seg(projectId)}`;
  const workflow = (projectId: string, workflowId: string) => `${project(projectId)}/workflows/${seg(workflowId)}`;

  return {
    auth: {
      register: (input: RegisterInput) => call<{ user: UserView }>('POST', '/auth/register', { body: input }),
      login: (input: LoginInput) => call<{ user: UserView }>('POST', '/auth/login', { body: input }),
      logout: () => call<{ ok: true }>('POST', '/auth/logout', { body: {}, anonymous: true }),
      /** Sign out everywhere: every login of this account ends and its live session sockets close. */
      logoutAll: () => call<{ ok: true }>('POST', '/auth/logout-all', { body: {}, anonymous: true }),
      me: () => call<{ user: UserView }>('GET', '/auth/me', { anonymous: true }),
      updateMe: (input: UpdateMeInput) => call<{ user: UserView }>('PATCH', '/auth/me', { body: input }),
    },

    projects: {
      list: () => call<{ projects: ProjectView[] }>('GET', '/projects'),
      create: (input: CreateProjectInput) => call<{ project: ProjectView }>('POST', '/projects', { body: input }),
      get: (projectId: string) => call<{ project: ProjectView }>('GET', project(projectId)),
      update: (projectId: string, input: UpdateProjectInput) =>
        call<{ project: ProjectView }>('PATCH', project(projectId), { body: input }),
      remove: (projectId: string) => call<{ deleted: true }>('DELETE', project(projectId)),
      putDomainProfile: (projectId: string, profile: DomainProfile) =>
        call<{ project: ProjectView }>('PUT', `${project(projectId)}/domain-profile`, { body: profile }),
      validation: (projectId: string) => call<ValidationView>('GET', `${project(projectId)}/validation`),
      /** The `.bmad` zip, or 422 PKG_VALIDATION_FAILED with `details[]` when errors block it. */
      exportPackage: (projectId: string, layout: ImportLayout = 'bmad') =>
        download(fetchFn, `${project(projectId)}/export?layout=${layout}`, layout === 'bmad' ? 'package.bmad' : 'bmad-method.zip'),
      /** What importing this zip would write (either layout) and the name it would get (`name`: the one typed), without writing anything. */
      previewImport: (file: Blob, fileName: string, name?: string) => {
        const form = new FormData();
        form.append('file', file, fileName);
        if (name) form.append('name', name);
        return call<{ preview: ImportPreview }>('POST', '/projects/import/preview', { body: form });
      },
      /** Upload a `.bmad` zip as a new project (multipart: `file`, optional `name`). */
      importPackage: (file: Blob, fileName: string, name?: string) => {
        const form = new FormData();
        form.append('file', file, fileName);
        if (name) form.append('name', name);
        return call<ImportedPackage>('POST', '/projects/import', { body: form });
      },
    },

    members: {
      /** The members, and (owners only; empty for others) the pending invitations. */
      list: (projectId: string) => call<{ members: MemberView[]; invitations: InvitationView[] }>('GET', `${project(projectId)}/members`),
      /** Invites by email: the person joins when they accept (lib/invitations-api.ts). */
      add: (projectId: string, input: AddMemberInput) =>
        call<{ invitation: InvitationView }>('POST', `${project(projectId)}/members`, { body: input }),
      revokeInvitation: (projectId: string, invitationId: string) =>
        call<{ deleted: true }>('DELETE', `${project(projectId)}/members/invitations/${seg(invitationId)}`),
      update: (projectId: string, userId: string, input: UpdateMemberInput) =>
        call<{ member: MemberView }>('PATCH', `${project(projectId)}/members/${seg(userId)}`, { body: input }),
      remove: (projectId: string, userId: string) =>
        call<{ deleted: true }>('DELETE', `${project(projectId)}/members/${seg(userId)}`),
    },

    workflows: {
      list: (projectId: string) => call<{ workflows: WorkflowSummaryView[] }>('GET', `${project(projectId)}/workflows`),
      create: (projectId: string, input: CreateWorkflowInput) =>
        call<{ workflow: WorkflowView }>('POST', `${project(projectId)}/workflows`, { body: input }),
      get: (projectId: string, workflowId: string) => call<{ workflow: WorkflowView }>('GET', workflow(projectId, workflowId)),
      update: (projectId: string, workflowId: string, input: UpdateWorkflowInput) =>
        call<{ workflow: WorkflowView }>('PATCH', workflow(projectId, workflowId), { body: input }),
      remove: (projectId: string, workflowId: string) => call<{ deleted: true }>('DELETE', workflow(projectId, workflowId)),
      putWorkflowMd: (projectId: string, workflowId: string, input: PutTextInput) =>
        call<SaveResult>('PUT', `${workflow(projectId, workflowId)}/workflow-md`, { body: input }),
      putGraph: (projectId: string, workflowId: string, input: PutTextInput) =>
        call<SaveResult>('PUT', `${workflow(projectId, workflowId)}/graph`, { body: input }),
      editGraph: (projectId: string, workflowId: string, input: GraphEditInput) =>
        call<SaveResult>('POST', `${workflow(projectId, workflowId)}/graph-edit`, { body: input }),
      getStep: (projectId: string, workflowId: string, nodeId: string) =>
        call<{ step: StepView; revision: number }>('GET', `${workflow(projectId, workflowId)}/steps/${seg(nodeId)}`),
      putStep: (projectId: string, workflowId: string, nodeId: string, input: PutStepInput) =>
        call<SaveResult>('PUT', `${workflow(projectId, workflowId)}/steps/${seg(nodeId)}`, { body: input }),
      removeStep: (projectId: string, workflowId: string, nodeId: string, baseRevision?: number) =>
        call<SaveResult>('DELETE', `${workflow(projectId, workflowId)}/steps/${seg(nodeId)}`, { query: { baseRevision } }),
    },

    agents: {
      list: (projectId: string) => call<AgentsView>('GET', `${project(projectId)}/agents`),
      put: (projectId: string, agentId: string, input: PutAgentInput) =>
        call<SaveResult>('PUT', `${project(projectId)}/agents/${seg(agentId)}`, { body: input }),
      remove: (projectId: string, agentId: string, baseRevision?: number) =>
        call<SaveResult>('DELETE', `${project(projectId)}/agents/${seg(agentId)}`, { query: { baseRevision } }),
    },

    assets: {
      list: (projectId: string) => call<AssetsView>('GET', `${project(projectId)}/assets`),
      get: (projectId: string, path: string) =>
        call<{ asset: AssetView; revision: number }>('GET', `${project(projectId)}/assets/file`, { query: { path } }),
      put: (projectId: string, input: PutAssetInput) => call<SaveResult>('PUT', `${project(projectId)}/assets/file`, { body: input }),
      remove: (projectId: string, path: string, baseRevision?: number) =>
        call<SaveResult>('DELETE', `${project(projectId)}/assets/file`, { query: { path, baseRevision } }),
      rename: (projectId: string, input: RenameAssetInput) =>
        call<SaveResult>('POST', `${project(projectId)}/assets/rename`, { body: input }),
    },

    history: {
      list: (projectId: string, query: { objectKey?: string; limit?: number; before?: string } = {}) =>
        call<{ entries: HistoryEntryView[]; nextCursor: string | null }>('GET', `${project(projectId)}/history`, { query }),
      get: (projectId: string, historyId: string) =>
        call<{ entry: HistoryEntryDetailView }>('GET', `${project(projectId)}/history/${seg(historyId)}`),
      revert: (projectId: string, historyId: string, input: RevertInput = {}) =>
        call<RevertResult>('POST', `${project(projectId)}/history/${seg(historyId)}/revert`, { body: input }),
      restoreBefore: (projectId: string, historyId: string, input: RestoreBeforeInput) =>
        call<RevertResult>('POST', `${project(projectId)}/history/${seg(historyId)}/restore-before`, { body: input }),
    },
  };
}

export type Api = ReturnType<typeof createApi>;

/** The API on the browser's own `fetch`, for event handlers and stores. */
export const api: Api = createApi();
