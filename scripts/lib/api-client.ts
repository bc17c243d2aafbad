/** A minimal cookie-keeping client of the product's API, for the seed script. */

/** An API answer that is not JSON (a proxy's or the runtime's own error page) still gets words. */
async function parseEnvelope<T>(res: Response): Promise<{ data: T; error: any }> {
  const text = await res.text();
  try {
    return JSON.parse(text) as { data: T; error: any };
  } catch {
    return { data: null as T, error: res.ok ? null : { code: `HTTP_${res.status}`, message: text.trim().slice(0, 200) || res.statusText } };
  }
}

/** "POST /api/auth/login failed (429): RATE_LIMITED Too many … (hint)": the server's own words. */
export function failureText(method: string, path: string, res: { status: number; error: any }): string {
  const hints: string[] = Array.isArray(res.error?.hints) ? res.error.hints : [];
  const details = (res.error?.details ?? []).map((d: any) => `\n    ${d.path}: ${d.message}`).join('');
  return `${method} ${path} failed (${res.status}): ${res.error?.code} ${res.error?.message}${hints.map((h) => `\n    ${h}`).join('')}${details}`;
}

export class SeedClient {
  #cookie: string | undefined;
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T; error: any }> {
    const headers: Record<string, string> = { origin: this.baseUrl };
    if (this.#cookie) headers.cookie = this.#cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.#cookie = setCookie.split(';')[0];
    const json = await parseEnvelope<T>(res);
    return { status: res.status, data: json.data, error: json.error };
  }

  /** POST a file as multipart/form-data (field `file`), plus text fields. */
  async upload<T = any>(path: string, file: Uint8Array, fields: Record<string, string> = {}): Promise<T> {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(file)], { type: 'application/zip' }), 'package.bmad');
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    const headers: Record<string, string> = { origin: this.baseUrl };
    if (this.#cookie) headers.cookie = this.#cookie;
    const res = await fetch(`${this.baseUrl}${path}`, { method: 'POST', headers, body: form });
    const json = await parseEnvelope<T>(res);
    if (res.status >= 400) throw new Error(failureText('POST', path, { status: res.status, error: json.error }));
    return json.data;
  }

  /** Like call, but a failure stops the seed with the server's message. */
  async must<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.call<T>(method, path, body);
    if (res.status >= 400) throw new Error(failureText(method, path, res));
    return res.data;
  }
}
