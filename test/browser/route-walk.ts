/**
 * A walk through every route of the app on the demo project, the way a person meets them: signed
 * out (sign-in, register, each refusing), then the projects list with a package's import preview, a
 * project's overview and each tab, the workflow editor (and with a step open, also on the Chinese
 * example project), an agent, an asset, the AI settings, the AI Workbench with a change the
 * demo model staged (and its apply), the sessions list, that session read-only afterwards, a
 * workbench address that lacks its target, History
 * and the error page. At each page, once it has settled, `check(name)` runs the caller's checks.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { DEMO_USER, seedDemo, ZH_PACKAGE_DIR, zipFolder } from '../../scripts/seed-demo.ts';
import type { ModelSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const AGENT = 'procurement-analyst';
const ASSET = 'assets/templates/onboarding-summary.md';
/** The Chinese example package (需求评审): a workflow and a step of it. */
const ZH_WF = 'req-review';
const ZH_STEP = 'review-requirements';

/** A few of the pages the walk must reach, so a walk cut short cannot pass unseen. */
export const WALKED = ['login refused', 'import done', 'workflow with a step open', 'workbench with a staged change', 'read-only past session', 'workbench address with a problem', 'history', 'error page'];

export type PageCheck = (name: string, page: Page) => Promise<void>;

/** The browser language for the walk's context: `zh-CN` reads the app in Chinese, `en-US` in English. */
export async function walkEveryRoute(started: ModelSuite, browserLocale: string, check: PageCheck): Promise<void> {
  const { suite, model } = started;
  const base = suite.product.url;
  const { projectId, zhProjectId } = await seedDemo(base, { scriptedModelUrl: model.url });
  // bypassCSP lets the checks inject axe-core; the app itself runs under its real CSP otherwise.
  const context: BrowserContext = await suite.browser.newContext({ baseURL: base, locale: browserLocale, viewport: { width: 1280, height: 900 }, bypassCSP: true });
  try {
    const page = await context.newPage();
    const visit = async (name: string, url: string, ready: string) => {
      await page.goto(url);
      await page.locator(ready).first().waitFor();
      await page.waitForLoadState('networkidle');
      await check(name, page);
    };

    // ---- Signed out, and each form's refusal.
    await visit('login', '/login', '[data-testid="login-form"]');
    await page.locator('#login-email').fill(DEMO_USER.email);
    await page.locator('#login-password').fill('not the password');
    await page.getByTestId('login-submit').click();
    await page.getByTestId('login-error').waitFor();
    await check('login refused', page);
    await visit('register', '/register', '[data-testid="register-form"]');
    await page.getByTestId('register-submit').click();
    await page.locator('#register-name-error').waitFor();
    await check('register with field errors', page);

    const login = await context.request.post(`${base}/api/auth/login`, { data: { email: DEMO_USER.email, password: DEMO_USER.password }, headers: { origin: base } });
    expect(login.status()).toBe(200);

    // ---- The project pages.
    const project = `/projects/${projectId}`;
    await visit('projects', '/projects', '[data-testid="project-item"]');
    // The import form: a package's preview (its name taken, so with the conflict notice), then imported.
    await page.getByTestId('import-file').setInputFiles({ name: 'req-review.bmad', mimeType: 'application/zip', buffer: Buffer.from(await zipFolder(ZH_PACKAGE_DIR)) });
    await page.getByTestId('import-name').fill(`Walk ${Date.now().toString(36)}`);
    await page.getByTestId('import-submit').click();
    await page.getByTestId('import-confirm').waitFor();
    await check('import preview', page);
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-done').waitFor();
    await check('import done', page);
    await visit('overview', project, '[data-testid="validation-counts"]');
    await visit('agents', `${project}/agents`, 'main h1');
    await visit('agent', `${project}/agents/${AGENT}`, '[data-testid="agent-ai-links"]');
    await visit('assets', `${project}/assets`, '[data-testid="assets-tree-section"]');
    await visit('asset', `${project}/assets?path=${encodeURIComponent(ASSET)}`, '[data-testid="asset-ai-links"]');
    await visit('workflow', `${project}/workflows/${WF}`, '[data-testid="workflow-ai-links"]');
    await visit('workflow with a step open', `${project}/workflows/${WF}?node=${STEP}`, '[data-testid="step-ai-links"]');
    await visit('Chinese project overview', `/projects/${zhProjectId}`, '[data-testid="validation-counts"]');
    await visit('Chinese workflow with a step open', `/projects/${zhProjectId}/workflows/${ZH_WF}?node=${ZH_STEP}`, '[data-testid="step-ai-links"]');
    await visit('settings', `${project}/settings`, 'main h1');
    await visit('members', `${project}/members`, '[data-testid="members-section"]');
    await visit('AI settings', '/settings/ai', '[data-testid="llm-profile-form"]');

    // ---- The AI Workbench, opened from the step's AI link, with a change the demo model staged.
    await page.goto(`${project}/workflows/${WF}?node=${STEP}`);
    await page.locator('[data-testid="step-ai-links"] [data-testid="ai-workbench-link"][data-mode="optimize"]').click();
    await page.locator('[data-testid="workbench"][data-phase="none"]').waitFor();
    await page.getByTestId('composer-input').fill(browserLocale.startsWith('zh') ? '请改进这一步。' : 'Please improve this step.');
    await page.getByTestId('composer-send').click();
    const turn = page.getByTestId('turn').first();
    await turn.getByTestId('turn-ending').waitFor({ timeout: 30_000 });
    expect(await turn.getByTestId('turn-ending').getAttribute('data-type')).toBe('finished');
    await page.locator('[data-testid="changes-version"][data-version="1"]').waitFor();
    await page.locator('[data-testid="validation-status"][data-valid="true"]').waitFor();
    const sessionId = await page.getByTestId('workbench').getAttribute('data-session-id');
    await check('workbench with a staged change', page);

    const apply = page.getByTestId('apply-button');
    await expect.poll(() => apply.isEnabled()).toBe(true);
    await apply.click();
    await page.getByTestId('apply-result').waitFor();
    await check('workbench after apply', page);

    // ---- The sessions list, and the applied session opened read-only from it.
    await visit('sessions', `${project}/sessions`, `[data-testid="session-row"][data-session-id="${sessionId}"]`);
    await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"] [data-testid="session-open"]`).click();
    await page.getByTestId('workbench-read-only').waitFor();
    await page.locator('[data-testid="applied-file"]').first().waitFor();
    await page.waitForLoadState('networkidle');
    await check('read-only past session', page);

    await visit('workbench address with a problem', `/builder/${projectId}/ai-workbench?targetType=agent&mode=optimize`, '[data-testid="workbench-problem"]');
    await visit('history', `${project}/history`, '[data-testid="history-entry"][data-action="ai_apply"]');
    await visit('error page', '/no-such-page', '[data-testid="error-page"]');
  } finally {
    await context.close();
  }
}
