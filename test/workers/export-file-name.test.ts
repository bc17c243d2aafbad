/**
 * The exported file is named after its project, in any script: Content-Disposition carries the
 * name as RFC 5987 `filename*=UTF-8''…` with an ASCII `filename="…"` fallback (RFC 6266), and a
 * name cannot break the header or the folder the file is saved in.
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

async function importNamed(client: TestClient, name: string): Promise<string> {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(env.TEST_PACKAGES['two-workflows'])) entries[path] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  const body = (await res.json()) as { data: any; error: unknown };
  expect(res.status, JSON.stringify(body.error)).toBe(201);
  return body.data.project.id as string;
}

async function disposition(client: TestClient, projectId: string, layout: 'bmad' | 'bmad-method' = 'bmad'): Promise<string> {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export?layout=${layout}`, { headers: { cookie: client.cookie! } });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get('content-disposition') ?? '';
}

/** The RFC 5987 name of a Content-Disposition, decoded, and its plain fallback. */
function names(header: string): { extended: string | undefined; plain: string | undefined } {
  const extended = /;\s*filename\*=UTF-8''([^;\s]+)/u.exec(header)?.[1];
  const plain = /;\s*filename="([^"]*)"/u.exec(header)?.[1];
  return { extended: extended === undefined ? undefined : decodeURIComponent(extended), plain };
}

describe('the name of an exported file', () => {
  it('is the project name in its own script, with an ASCII fallback', async () => {
    const user = await signedInClient('FileName');
    const projectId = await importNamed(user, '客服工作台');
    const header = await disposition(user, projectId);
    expect(header).toBe(`attachment; filename="package.bmad"; filename*=UTF-8''${encodeURIComponent('客服工作台')}.bmad`);
    expect(names(await disposition(user, projectId, 'bmad-method'))).toEqual({ extended: '客服工作台-bmad-method.zip', plain: 'package-bmad-method.zip' });
    // ASCII names keep their case and spaces; RFC 5987 leaves no ' ( ) * bare.
    await user.patch(`/api/projects/${projectId}`, { name: "Support Desk (Ana's copy)*" });
    const ascii = await disposition(user, projectId);
    expect(ascii).toContain(`filename*=UTF-8''Support%20Desk%20%28Ana%27s%20copy%29.bmad`);
    expect(names(ascii)).toEqual({ extended: "Support Desk (Ana's copy).bmad", plain: 'support-desk-ana-s-copy.bmad' });
  });

  it('cannot break the header or leave the download folder: quotes, CR/LF and path separators are dropped', async () => {
    const user = await signedInClient('FileNameHostile');
    const projectId = await importNamed(user, 'ok');
    const renamed = await user.patch(`/api/projects/${projectId}`, { name: '报告 "Q3"\r\nSet-Cookie: a=1; ../..\\etc/passwd' });
    expect(renamed.status, JSON.stringify(renamed.error)).toBe(200);
    const header = await disposition(user, projectId);
    expect(header).not.toMatch(/[\r\n]/u);
    const { extended, plain } = names(header);
    expect(extended).toBe('报告 Q3 Set-Cookie a=1; .. .. etc passwd.bmad');
    expect(extended).not.toMatch(/["\\/\r\n]/u);
    expect(plain).toMatch(/^[\x20-\x7e]+\.bmad$/u);
    expect(plain).not.toMatch(/["\\/]/u);
  });
});
