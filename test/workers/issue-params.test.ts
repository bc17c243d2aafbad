// The import preview's notes carry the values of their message (`params`), so the app words them in
// its reader's language; the English message stays as it was for the API and the model.
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

type Files = Record<string, string>;

async function preview(client: TestClient, files: Files) {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[path] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import/preview`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return (await res.json()) as { data: any; error: any };
}

describe('import preview notes', () => {
  it('carry the renamed asset’s old and new name, and the unknown file’s path, beside the English message', async () => {
    const user = await signedInClient('Zhou');
    const files: Files = { 'notes.txt': 'stray' };
    for (const [path, text] of Object.entries(env.TEST_PACKAGES['zh-review'])) {
      files[path === 'assets/templates/review-checklist.md' ? 'assets/templates/评审清单.md' : path] = text.replaceAll('review-checklist.md', '评审清单.md');
    }
    const { data } = await preview(user, files);
    const renamed = data.preview.warnings.find((w: { code: string }) => w.code === 'ASSET_RENAMED');
    expect(renamed.params).toEqual({ from: 'assets/templates/评审清单.md', to: renamed.path });
    expect(renamed.message).toContain('was renamed to');
    const unknown = data.preview.warnings.find((w: { code: string }) => w.code === 'PKG_UNKNOWN_FILE');
    expect(unknown.params).toEqual({ path: 'notes.txt' });
  });
});
