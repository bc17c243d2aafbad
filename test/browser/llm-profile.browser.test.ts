import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, newUser, registerViaApi, screenshot, signInThroughUi, useModelSuite } from './harness.ts';
import { freePort } from './product.ts';

/** Every body the page received (documents, scripts and API answers), read as text. */
function recordResponses(page: Page): () => Promise<Array<{ url: string; body: string }>> {
  const pending: Array<Promise<{ url: string; body: string }>> = [];
  page.on('response', (response) => {
    pending.push(
      response
        .text()
        .catch(() => '')
        .then((body) => ({ url: response.url(), body })),
    );
  });
  return () => Promise.all(pending);
}

describeBrowser('AI settings (browser)', () => {
  const started = useModelSuite();

  it('sets up a model in under a minute: preset, key, test, save; the key never comes back', { timeout: 120_000 }, async () => {
    const { suite, model } = started;
    const context = await suite.newContext();
    const page = await context.newPage();
    const responses = recordResponses(page);
    const user = newUser('Llm');
    const canary = `sk-canary-${randomBytes(12).toString('hex')}`;
    const wrongKey = `sk-wrong-${randomBytes(12).toString('hex')}`;
    const otherKey = `sk-other-${randomBytes(12).toString('hex')}`;

    await registerViaApi(suite.product, user);
    await page.goto('/login');
    await signInThroughUi(page, user);
    await page.waitForURL('**/projects');

    await page.getByTestId('nav-ai-settings').click();
    await page.waitForURL('**/settings/ai');
    const badge = page.getByTestId('ai-availability');
    await badge.waitFor();
    expect(await badge.getAttribute('data-available')).toBe('false');
    expect(await badge.getAttribute('data-code')).toBe('AI_DISABLED');
    expect(await page.getByTestId('ai-availability-text').textContent()).toMatch(/^AI unavailable: No AI model is set up for you/);
    expect(await page.getByRole('radio', { name: 'Turn AI off', exact: true }).isChecked()).toBe(true);

    // A preset pre-fills the form; the offline demo is labelled as such.
    await page.getByRole('radio', { name: 'OpenAI', exact: true }).check();
    expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe('https://api.openai.com/v1');
    expect(await page.getByText('Offline demo: canned answers, no real AI.').count()).toBe(1);

    // Custom starts empty; testing it is refused next to the field before anything is sent.
    await page.getByRole('radio', { name: 'Custom', exact: true }).check();
    expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe('');
    await page.getByTestId('llm-test').click();
    await page.locator('#llm-base-url-error').waitFor();
    expect(await page.locator('#llm-base-url-error').textContent()).toContain('Enter the base URL');
    expect(model.chatRequests()).toHaveLength(0);

    await page.getByLabel('Base URL', { exact: true }).fill(model.url);
    await page.getByLabel('Model', { exact: true }).fill('scripted-echo');
    await page.getByLabel('API key', { exact: true }).fill(canary);
    expect(await page.locator('#llm-base-url-error').count()).toBe(0);

    // Test connection tries the form's values without saving them.
    await page.getByTestId('llm-test').click();
    const result = page.getByTestId('llm-test-result');
    await result.waitFor();
    expect(await result.getAttribute('data-outcome')).toBe('ok');
    expect(await page.getByTestId('llm-test-result-model').textContent()).toBe('scripted-echo');
    expect(await page.getByTestId('llm-test-result-latency').textContent()).toMatch(/^\d+ ms$/);
    expect(model.chatRequests().at(-1)?.headers['authorization']).toBe(`Bearer ${canary}`);
    expect(await badge.getAttribute('data-available')).toBe('false');

    await page.getByTestId('llm-save').click();
    await page.getByTestId('llm-notice').waitFor();
    expect(await badge.getAttribute('data-available')).toBe('true');
    expect(await page.getByTestId('ai-availability-text').textContent()).toBe('AI available (your profile)');
    expect(await page.getByLabel('New API key').inputValue()).toBe('');
    const mask = await page.getByTestId('llm-saved-key-mask').textContent();
    expect(mask).toBe(`sk-***${canary.slice(-4)}`);
    expect(await page.getByTestId('llm-health').getAttribute('data-health')).toBe('unknown');
    expect(await page.getByTestId('llm-last-tested').textContent()).toBe('never');

    // Testing the saved profile records its health.
    await page.getByTestId('llm-test-saved').click();
    await page.getByTestId('llm-saved-test-result').waitFor();
    expect(await page.getByTestId('llm-saved-test-result').getAttribute('data-outcome')).toBe('ok');
    expect(await page.getByTestId('llm-health').getAttribute('data-health')).toBe('ok');
    expect(await page.getByTestId('llm-last-tested').textContent()).not.toBe('never');

    // After a reload the saved profile is shown, but never the key.
    await page.reload();
    await badge.waitFor();
    expect(await badge.getAttribute('data-available')).toBe('true');
    expect(await page.getByRole('radio', { name: 'Custom', exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe(model.url);
    expect(await page.getByLabel('New API key').inputValue()).toBe('');
    expect(await page.getByTestId('llm-saved-key-mask').textContent()).toBe(mask);
    expect(await page.getByTestId('llm-health').getAttribute('data-health')).toBe('ok');

    // A wrong key: the provider refuses it (and echoes it back); the code and hints are shown, the key is not.
    model.failNext({ fault: 'invalid_api_key', echoKey: true });
    await page.getByLabel('New API key').fill(wrongKey);
    await page.getByTestId('llm-test').click();
    await page.getByTestId('llm-test-result-problem').waitFor();
    expect(await result.getAttribute('data-outcome')).toBe('failed');
    expect(await page.getByTestId('llm-test-result-problem-code').textContent()).toMatch(/^AI_PROVIDER_/);
    expect(await page.getByTestId('llm-test-result-problem-message').textContent()).toContain('HTTP 401');
    expect(await page.getByTestId('llm-test-result-problem-hints').textContent()).toContain('Check the API key');
    // Only a test: the saved profile is untouched.
    expect(await page.getByTestId('llm-health').getAttribute('data-health')).toBe('ok');
    // A full-page shot of a scrolled page would draw the sticky top bar mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'ai-settings.png');

    // Another server: the saved key does not follow the base URL there, so the form asks for one first.
    const closedPort = await freePort();
    await page.getByLabel('New API key').fill('');
    await page.getByLabel('Base URL', { exact: true }).fill(`http://127.0.0.1:${closedPort}/v1`);
    const requestsBefore = model.requests.length;
    await page.getByTestId('llm-test').click();
    await page.getByTestId('llm-api-key-error').waitFor();
    expect(await page.getByTestId('llm-api-key-error').textContent()).toContain('Enter the API key again');
    await page.getByLabel('New API key').fill(otherKey);
    expect(await page.getByTestId('llm-api-key-error').count()).toBe(0);
    await page.getByTestId('llm-test').click();
    await page.getByTestId('llm-test-result-problem-code').filter({ hasText: 'AI_PROVIDER_UNREACHABLE' }).waitFor();
    expect(await page.getByTestId('llm-test-result-problem-code').textContent()).toBe('AI_PROVIDER_UNREACHABLE');
    expect(await page.getByTestId('llm-test-result-problem-hints').textContent()).toContain('Check the base URL');
    expect(model.requests.length).toBe(requestsBefore);

    // Turning AI off keeps the connection: choosing the saved preset again brings it back.
    await page.getByRole('radio', { name: 'Turn AI off', exact: true }).check();
    await page.getByTestId('llm-save').click();
    await page.getByTestId('llm-notice').waitFor();
    expect(await badge.getAttribute('data-available')).toBe('false');
    expect(await page.getByTestId('llm-saved-key-mask').count()).toBe(0);
    await page.getByRole('radio', { name: 'Custom', exact: true }).check();
    expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe(model.url);
    expect(await page.getByTestId('llm-saved-key-mask').textContent()).toBe(mask);

    // Nothing the page received, and nothing it shows, holds a full key.
    const html = await page.content();
    const received = await responses();
    expect(received.some((r) => new URL(r.url).pathname === '/api/users/me/llm-profile')).toBe(true);
    for (const secret of [canary, wrongKey, otherKey]) {
      expect(html).not.toContain(secret);
      for (const { url, body } of received) {
        expect(body, `the answer of ${url}`).not.toContain(secret);
      }
    }
    await context.close();
  });
});
