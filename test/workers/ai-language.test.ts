/**
 * The AI in the author's language, through the real Worker, session object and model socket: the
 * turn's first request names the project's content language and the sender's language, and the
 * scripted demo model (what `npm start` offers) stages Chinese text on a Chinese project.
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import { connect, type Watcher } from './sessions.ts';
import { CANARY_KEY, finalAnswer, send, turnEnd, useScriptedModel } from './turns.ts';

async function importPackage(client: TestClient, name: 'zh-review' | 'two-workflows'): Promise<string> {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(env.TEST_PACKAGES[name])) entries[path] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  form.set('name', `${name} ${Math.random().toString(36).slice(2, 8)}`);
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  const json = (await res.json()) as { data: any; error: any };
  if (res.status !== 201) throw new Error(`import failed: ${JSON.stringify(json.error)}`);
  return json.data.project.id as string;
}

async function session(client: TestClient, base: string, body: Record<string, unknown>) {
  const created = await client.post(`${base}/ai/sessions`, body);
  if (created.status !== 201) throw new Error(`create session failed: ${JSON.stringify(created.error)}`);
  const sessionId = created.data.sessionId as string;
  return { path: `${base}/ai/sessions/${sessionId}`, watcher: await connect(client, base, sessionId) };
}

async function runTurn(client: TestClient, watcher: Watcher, path: string, content: string) {
  const accepted = await send(client, path, content);
  expect(accepted.status).toBe(202);
  return turnEnd(watcher, accepted.data.turnId as string);
}

const systemOf = (request: { body: any }) => String(request.body.messages[0].content);

describe('the language instruction of a turn', () => {
  it('names the Chinese content language, and answers in the script of the message when the sender chose no language', async () => {
    const owner = await signedInClient('Lin');
    const base = `/api/projects/${await importPackage(owner, 'zh-review')}`;
    const scripted = await useScriptedModel(owner, [finalAnswer('好的。', 'chat')]);
    const { path, watcher } = await session(owner, base, { workflowId: 'req-review', targetType: 'step', targetId: 'collect-requirements', mode: 'optimize' });
    expect((await runTurn(owner, watcher, path, '请把这一步写得更清楚')).type).toBe('turn.finished');
    const [first] = await scripted.requests();
    expect(systemOf(first!)).toContain('- Content language of this project: zh. Write every text you stage in 简体中文 (zh)');
    expect(systemOf(first!)).toContain('in 简体中文 (zh): the language their message is written in.');
    expect(systemOf(first!)).toContain('hints from the tools are in English');
    watcher.close();
  });

  it('answers in the language of the sender\'s account, and follows a content language changed in Settings', async () => {
    const owner = await signedInClient('Ada');
    expect((await owner.patch('/api/auth/me', { locale: 'en' })).status).toBe(200);
    const base = `/api/projects/${await importPackage(owner, 'zh-review')}`;
    const scripted = await useScriptedModel(owner, [finalAnswer('OK.', 'chat'), finalAnswer('OK.', 'chat')]);
    const { path, watcher } = await session(owner, base, { workflowId: 'req-review', targetType: 'step', targetId: 'collect-requirements', mode: 'optimize' });
    await runTurn(owner, watcher, path, '请把这一步写得更清楚');
    expect(systemOf((await scripted.requests())[0]!)).toContain('in English (en): the language of their account.');
    expect((await owner.patch(base, { contentLanguage: 'en' })).status).toBe(200);
    await runTurn(owner, watcher, path, 'Tighten it, please.');
    const requests = await scripted.requests();
    expect(systemOf(requests.at(-1)!)).toContain('- Content language of this project: en.');
    watcher.close();
  });
});

describe('the scripted demo model in the content language', () => {
  async function useDemoModel(client: TestClient): Promise<void> {
    const res = await client.put('/api/users/me/llm-profile', {
      provider: 'openai-compatible',
      preset: 'custom',
      baseUrl: env.SCRIPTED_OPENAI_URL,
      model: 'scripted-demo',
      apiKey: CANARY_KEY,
      timeoutSeconds: 30,
    });
    if (res.status !== 200) throw new Error(`profile failed: ${JSON.stringify(res.error)}`);
  }

  async function stagedStep(client: TestClient, base: string, workflowId: string, targetId: string, message: string) {
    const { path, watcher } = await session(client, base, { workflowId, targetType: 'step', targetId, mode: 'optimize' });
    const end = await runTurn(client, watcher, path, message);
    watcher.close();
    if (end.type !== "turn.finished" || end.payload.responseType !== "change") throw new Error(`turn ended with ${JSON.stringify(end.payload)}`);
    expect(end.payload).toMatchObject({ responseType: 'change', valid: true });
    const files = (await client.get(`${path}/changes`)).data.files as Array<{ key: string; after: string }>;
    return files.find((f) => f.key === `step:${workflowId}/${targetId}`)!.after;
  }

  it('stages Chinese text on the Chinese example package', async () => {
    const owner = await signedInClient('Wang');
    await useDemoModel(owner);
    const base = `/api/projects/${await importPackage(owner, 'zh-review')}`;
    const after = await stagedStep(owner, base, 'req-review', 'collect-requirements', '请改进一下');
    expect(after).toContain('按顺序完成以下清单');
  });

  it('stages Chinese text on an English package once its content language is set to Chinese', async () => {
    const owner = await signedInClient('Zhou');
    await useDemoModel(owner);
    const base = `/api/projects/${await importPackage(owner, 'two-workflows')}`;
    expect((await owner.patch(base, { contentLanguage: 'zh' })).status).toBe(200);
    const after = await stagedStep(owner, base, 'ticket-triage', 'classify-issue', 'Improve this step');
    expect(after).toContain('按顺序完成以下清单');
  });
});
