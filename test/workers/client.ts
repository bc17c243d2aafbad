/**
 * A small test client for the real Worker (exports.default.fetch inside workerd): keeps the
 * session cookie like a browser, sends same-origin JSON, returns status + parsed envelope.
 */
import { exports } from 'cloudflare:workers';
import type { ErrorBody } from '../../shared/errors.ts';
import { noteCredentials } from './log-canary.ts';

export const ORIGIN = 'http://localhost';

export interface ApiResult<T = any> {
  status: number;
  data: T;
  error: ErrorBody | null;
  headers: Headers;
}

export class TestClient {
  cookie: string | undefined;

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResult<T>> {
    const init: RequestInit = { method, headers: { origin: ORIGIN, ...headers } };
    const h = init.headers as Record<string, string>;
    if (this.cookie) h.cookie = this.cookie;
    if (body !== undefined) {
      // The log canary searches the suite's logs for every email and password sent.
      noteCredentials(typeof body === 'string' ? safeJson(body) : body);
      h['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await exports.default.fetch(`${ORIGIN}${path}`, init);
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const [pair] = setCookie.split(';');
      const value = pair!.slice(pair!.indexOf('=') + 1);
      this.cookie = value ? pair : undefined;
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as { data: T; error: ErrorBody | null }) : { data: null as T, error: null };
    return { status: res.status, data: json.data, error: json.error, headers: res.headers };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }
  put<T = any>(path: string, body: unknown) {
    return this.request<T>('PUT', path, body);
  }
  patch<T = any>(path: string, body: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

let counter = 0;

/** Register a fresh user and return a signed-in client. */
export async function signedInClient(name = 'Ada'): Promise<TestClient & { userId: string; email: string }> {
  const client = new TestClient();
  const email = `${name.toLowerCase()}-${Date.now()}-${counter++}@example.test`;
  const res = await client.post('/api/auth/register', { email, password: 'correct horse battery', name });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.error)}`);
  return Object.assign(client, { userId: res.data.user.id as string, email });
}

/**
 * Make `invitee` a member as people do: the owner invites their email, the invitee finds the
 * invitation in their own list and accepts it (the real routes both ways, no shortcut).
 */
export async function joinProject(owner: TestClient, projectId: string, invitee: TestClient, email: string, role: 'owner' | 'editor' | 'viewer') {
  const invited = await owner.post(`/api/projects/${projectId}/members`, { email, role });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.error)}`);
  const mine = await invitee.get('/api/users/me/invitations');
  const invitation = (mine.data?.invitations as Array<{ id: string; projectId: string }> | undefined)?.find((i) => i.projectId === projectId);
  if (!invitation) throw new Error(`invitation not listed for the invitee: ${mine.status} ${JSON.stringify(mine.error ?? mine.data)}`);
  const accepted = await invitee.post(`/api/users/me/invitations/${invitation.id}/accept`);
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.error)}`);
  return accepted;
}

/** An owner with a project, plus helpers to add members in a role. */
export async function projectWithOwner() {
  const owner = await signedInClient('Owner');
  const created = await owner.post('/api/projects', { name: 'Expense ops', description: 'Finance workflows' });
  if (created.status !== 201) throw new Error(`create project failed: ${JSON.stringify(created.error)}`);
  const projectId = created.data.project.id as string;
  async function member(role: 'editor' | 'viewer', name = role === 'editor' ? 'Edith' : 'Victor') {
    const client = await signedInClient(name);
    await joinProject(owner, projectId, client, client.email, role);
    return client;
  }
  return { owner, projectId, base: `/api/projects/${projectId}`, member };
}
