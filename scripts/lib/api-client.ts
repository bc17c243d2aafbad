/** A minimal cookie-keeping client of the product's API, for the seed script. */
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
    const json = (await res.json()) as { data: T; error: any };
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
    const json = (await res.json()) as { data: T; error: any };
    if (res.status >= 400) {
      const details = (json.error?.details ?? []).map((d: any) => `\n    ${d.path}: ${d.message}`).join('');
      throw new Error(`POST ${path} failed (${res.status}): ${json.error?.code} ${json.error?.message}${details}`);
    }
    return json.data;
  }

  /** Like call, but a failure stops the seed with the server's message. */
  async must<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.call<T>(method, path, body);
    if (res.status >= 400) {
      throw new Error(`${method} ${path} failed (${res.status}): ${res.error?.code} ${res.error?.message}`);
    }
    return res.data;
  }
}
