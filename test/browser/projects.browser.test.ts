import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, newUser, screenshot, startSuite, type Suite } from './harness.ts';

describeBrowser('projects (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('registers a user, creates a project, lists it and opens its overview with empty states', async () => {
    const context = await suite.newContext();
    const page = await context.newPage();
    const owner = newUser('Owner');
    const projectName = `Expense ops ${Date.now().toString(36)}`;

    // Signed out, `/` leads to the sign-in page, which links to registration.
    await page.goto('/');
    await page.waitForURL('**/login');
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.waitForURL('**/register');

    // A too-short password is refused next to its field; Enter submits the form.
    await page.getByLabel('Name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('short');
    await page.getByLabel('Password').press('Enter');
    await page.locator('#register-password-error').waitFor();
    expect(await page.locator('#register-password-error').textContent()).toContain('at least 10 characters');

    await page.getByLabel('Password').fill(owner.password);
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL('**/projects');

    expect(await page.getByTestId('current-user').textContent()).toContain(owner.name);
    await page.getByTestId('projects-empty').waitFor();
    expect(await page.getByTestId('projects-empty').textContent()).toContain('No projects yet — create your first');

    await page.getByLabel('Name').fill(projectName);
    await page.getByLabel('Description').fill('Routes expense reports to the right approver.');
    await page.getByTestId('create-project-submit').click();

    const item = page.getByTestId('project-item').filter({ hasText: projectName });
    await item.waitFor();
    expect(await item.getByTestId('role-badge').textContent()).toBe('owner');
    expect(await item.getByTestId('project-agents-revision').textContent()).toMatch(/agents rev \d+/);
    expect(await page.getByTestId('projects-empty').count()).toBe(0);

    await item.getByRole('link', { name: projectName }).click();
    await page.waitForURL(/\/projects\/[^/]+$/);
    await page.getByTestId('project-overview').waitFor();

    expect(await page.getByTestId('project-name').textContent()).toBe(projectName);
    expect(await page.getByTestId('project-role').textContent()).toBe('owner');
    expect(await page.getByTestId('project-description').textContent()).toContain('Routes expense reports');
    for (const empty of ['workflows-empty', 'agents-empty', 'assets-empty']) {
      await page.getByTestId(empty).waitFor();
    }
    // An owner sees the write controls, on the settings tab.
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('project-edit-form').waitFor();
    await page.getByTestId('domain-profile-form').waitFor();
    await page.getByTestId('delete-project').waitFor();
    await page.getByTestId('tab-overview').click();
    await page.getByTestId('project-overview').waitFor();

    // Reloading a deep link works (the Worker serves the SPA for every page path).
    await page.reload();
    await page.getByTestId('project-overview').waitFor();
    expect(await page.getByTestId('project-name').textContent()).toBe(projectName);

    await screenshot(page, 'overview.png');
    await context.close();
  });
});
