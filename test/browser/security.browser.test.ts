/**
 * The security policy in a real browser, against `wrangler dev`: the pages carry the headers of
 * app/static/_headers and the hashed <meta> policy of kit.csp; the main pages (login, projects,
 * a workflow's graph with a step in CodeMirror, the AI workbench with a live turn over its
 * socket) run with the policy on and report no violation; another site cannot frame the Builder.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from '../../scripts/seed-demo.ts';
import { demo } from '../support/scripted-openai/index.ts';
import { describeBrowser, signInThroughUi, useModelSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'quick-check';

interface Violation {
  page: string;
  directive: string;
  blocked: string;
  /** Where the refused code or markup is (file:line:column), to find what to fix. */
  source: string;
  sample: string;
}

/**
 * Records every CSP violation of every document the context opens: the DOM event (registered
 * before any page script runs) and Chromium's console report, which also covers what the event
 * cannot see (e.g. a refused frame).
 */
async function recordViolations(context: BrowserContext, page: Page): Promise<Violation[]> {
  const violations: Violation[] = [];
  await context.exposeBinding('__cspViolation', ({ page: source }, v: Omit<Violation, 'page'>) => {
    violations.push({ page: source.url(), ...v });
  });
  await context.addInitScript(() => {
    document.addEventListener(
      'securitypolicyviolation',
      (event) => {
        const report = (window as unknown as { __cspViolation(v: unknown): void }).__cspViolation;
        report({
          directive: event.effectiveDirective,
          blocked: event.blockedURI,
          source: `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
          sample: event.sample,
        });
      },
      { capture: true },
    );
  });
  page.on('console', (message) => {
    if (/Content[ -]Security[ -]Policy/i.test(message.text())) {
      const { url, lineNumber, columnNumber } = message.location();
      violations.push({ page: page.url(), directive: 'console', blocked: '', source: `${url}:${lineNumber}:${columnNumber}`, sample: message.text() });
    }
  });
  return violations;
}

describeBrowser('security policy (browser)', () => {
  const started = useModelSuite();

  it('serves the pages with the headers and a hashed policy, and the main pages run under it with no violation', { timeout: 120_000 }, async () => {
    const { suite, model } = started;
    const base = suite.product.url;
    model.setScenario(demo);
    const { projectId } = await seedDemo(base, { scriptedModelUrl: model.url });

    const context = await suite.newContext();
    const page = await context.newPage();
    const violations = await recordViolations(context, page);

    // The page's headers (from _headers, through the assets layer) and its <meta> policy.
    const loginResponse = await page.goto('/login');
    const headers = loginResponse!.headers();
    expect(headers['content-security-policy']).toBe("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['permissions-policy']).toContain('camera=()');
    const meta = await page.locator('meta[http-equiv="content-security-policy"]').getAttribute('content');
    const directives = new Map(meta!.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    // Scripts: this origin and the hashed bootstrap only; no eval, no other inline script.
    expect(directives.get('script-src')).toEqual(["'self'", expect.stringMatching(/^'sha256-[A-Za-z0-9+/]+={0,2}'$/)]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    // No form may submit natively (the app handles every submit in script).
    expect(directives.get('form-action')).toEqual(["'none'"]);
    expect(meta).not.toContain('unsafe-eval');
    // Style attributes: only the hashed ones (SvelteKit's announcer), never any.
    expect(directives.get('style-src-attr')).not.toContain("'unsafe-inline'");
    // A client-side route answered by the SPA fallback carries the same headers.
    const deep = await context.request.get(`${base}/projects/${projectId}/workflows/${WF}`);
    expect(deep.headers()['content-security-policy']).toBe("frame-ancestors 'none'");
    expect(deep.headers()['x-content-type-options']).toBe('nosniff');

    // Login and the projects page.
    await signInThroughUi(page, DEMO_USER);
    await page.waitForURL(/\/projects$/);
    await page.getByTestId('project-item').first().waitFor();

    // The workflow editor: the graph (Svelte Flow) and a step in CodeMirror, edited.
    await page.goto(`/projects/${projectId}/workflows/${WF}?node=${STEP}`);
    await page.getByTestId('workflow-graph').waitFor();
    await page.getByTestId('graph-node').first().waitFor();
    await page.getByTestId('step-inspector').waitFor();
    const content = page.getByTestId('step-editor').locator('.cm-content');
    await content.waitFor();
    await content.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.insertText('\nA line typed under the policy.');
    await page.getByTestId('step-editor').locator('.cm-line', { hasText: 'A line typed under the policy.' }).waitFor();

    // The AI workbench: a turn runs live over the session socket (connect-src 'self' covers ws:).
    await page.goto(`/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`);
    await page.getByLabel('Message', { exact: true }).fill('What does the quick check do?');
    await page.getByTestId('composer-send').click();
    await page.locator('[data-testid="live-status"][data-status="open"]').waitFor();
    await page.locator('[data-testid="turn-ending"][data-type="finished"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('context-disclosure').locator('summary').click();

    // The other pages, rendered with their data.
    for (const path of [`/projects/${projectId}`, `/projects/${projectId}/history`, `/projects/${projectId}/assets`, `/projects/${projectId}/agents`, `/projects/${projectId}/members`, `/projects/${projectId}/settings`, '/settings/ai']) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      await page.getByTestId('top-bar').waitFor();
    }

    expect(violations).toEqual([]);
    await context.close();
  });

  // A viewer may write a comment everyone on the project reads. Markup in it must stay text's
  // markup: a <style> and a <form> covering the page with an invisible button would make the
  // owner's next click anywhere cancel the session with the owner's cookie.
  it('renders a planted form, button and style in a comment as nothing that acts, and a click anywhere changes nothing', { timeout: 120_000 }, async () => {
    const { suite, model } = started;
    const base = suite.product.url;
    const { projectId } = await seedDemo(base, { scriptedModelUrl: model.url });
    const api = `${base}/api/projects/${projectId}`;
    const data = async (res: { json(): Promise<unknown> }) => ((await res.json()) as { data: any }).data;
    const signedIn = async (user: { email: string; password: string }) => {
      const context = await suite.newContext();
      expect((await context.request.post(`${base}/api/auth/login`, { data: { email: user.email, password: user.password }, headers: { origin: base } })).status()).toBe(200);
      return context;
    };
    const owner = await signedIn(DEMO_USER);
    const viewer = await signedIn(DEMO_VIEWER);

    // ---- A session with a staged step, and the viewer's comment on its first line.
    const created = await owner.request.post(`${api}/ai/sessions`, { data: { workflowId: WF, targetType: 'step', targetId: STEP, mode: 'optimize' }, headers: { origin: base } });
    expect(created.status()).toBe(201);
    const sessionPath = `${api}/ai/sessions/${(await data(created)).sessionId}`;
    const step = await data(await owner.request.get(`${api}/workflows/${WF}/steps/${STEP}`));
    const operations = [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: `${step.step.markdown}\nOne more line.\n` } }];
    const staged = await owner.request.post(`${sessionPath}/stage`, { data: { changeSet: { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations } }, headers: { origin: base } });
    expect(staged.status()).toBe(200);
    const trap = [
      'Planted markup below.',
      '<style>.trap{position:fixed;inset:0;width:100vw;height:100vh;opacity:0;z-index:2147483647}</style>',
      `<form method="post" action="/api/projects/${projectId}/ai/sessions/x/cancel"><button class="trap">go</button><input name="q" value="1"><select><option>a</option></select><textarea>t</textarea></form>`,
      '<div class="modal-backdrop" style="position:fixed;inset:0" id="top-bar">borrowed</div>',
      '<a href="javascript:alert(1)">a link</a>',
      '',
      '- [x] a done task',
      '',
      '```ts',
      'const kept = true;',
      '```',
    ].join('\n');
    const comment = await viewer.request.post(`${sessionPath}/comments`, { data: { objectKey: `step:${WF}/${STEP}`, line: 1, body: trap }, headers: { origin: base } });
    expect(comment.status()).toBe(201);

    // ---- The owner opens the Workbench and reads it.
    const page = await owner.newPage();
    await page.goto(`/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`);
    const body = page.locator('[data-testid="thread-comment"] .body', { hasText: 'Planted markup below.' });
    await body.waitFor();
    // The renderer loads on first use: wait for the Markdown (the task list) rather than the escaped text.
    await body.locator('li').waitFor();
    expect(await body.locator('style, form, button, select, textarea, [style], [id], [class]:not(code)').count()).toBe(0);
    expect(await body.locator('input').evaluateAll((inputs) => inputs.map((i) => ({ type: i.getAttribute('type'), disabled: (i as HTMLInputElement).disabled })))).toEqual([
      { type: null, disabled: true },
      { type: 'checkbox', disabled: true },
    ]);
    expect(await body.locator('code').getAttribute('class')).toBe('language-ts');
    expect(await body.locator('a[href^="javascript"]').count()).toBe(0);

    // ---- A click in the middle of the page (where the covering button would be) changes nothing.
    const size = page.viewportSize()!;
    await page.mouse.click(size.width / 2, size.height / 2);
    await page.waitForLoadState('networkidle');
    const state = await data(await owner.request.get(sessionPath));
    expect(state.status).toBe('active');
    await owner.close();
    await viewer.close();
  });

  it('cannot be framed by another site', async () => {
    const { suite } = started;
    const context = await suite.newContext();
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('frame-ancestors')) refusals.push(message.text());
    });
    // A page of another origin (about:blank's opaque one) embedding the login page.
    await page.setContent(`<iframe id="victim" src="${suite.product.url}/login"></iframe>`);
    await expect.poll(() => refusals.length).toBeGreaterThan(0);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.locator('[data-testid="login-form"]').count().catch(() => 0)).toBe(0);
    await context.close();
  });
});
