import { expect, it } from 'vitest';

it('turns zod jitless before zod loads, so its eval probe never runs under the page policy', async () => {
  await import('./hooks.client.ts');
  const { z } = await import('zod');
  expect(z.config().jitless).toBe(true);
});
