/** The export download of app/lib/api.ts: the file is saved under the name the Worker's Content-Disposition gives, in any script, and only as a file name. */
import { describe, expect, it } from 'vitest';
import { createApi, type FetchLike } from './api.ts';
import { attachmentFileName } from './attachment-name.ts';

/** An api whose export answers a small zip with this Content-Disposition. */
function apiAnswering(disposition: string | null) {
  const fetchFn: FetchLike = async () => {
    const headers = new Headers({ 'content-type': 'application/zip', 'x-bmad-warnings': '0' });
    if (disposition !== null) headers.set('content-disposition', disposition);
    return new Response(new Uint8Array([0x50, 0x4b, 0x05, 0x06]), { status: 200, headers });
  };
  return createApi(fetchFn);
}

async function savedAs(disposition: string | null, layout: 'bmad' | 'bmad-method' = 'bmad') {
  const result = await apiAnswering(disposition).projects.exportPackage('prj_1', layout);
  if (!result.ok) throw new Error(result.error.message);
  return result.data.fileName;
}

describe('the name an export is saved under', () => {
  it("is the RFC 5987 name (a Chinese project name), over the ASCII fallback", async () => {
    const header = `attachment; filename="package.bmad"; filename*=UTF-8''${encodeURIComponent('客服工作台')}.bmad`;
    expect(await savedAs(header)).toBe('客服工作台.bmad');
    expect(await savedAs(`attachment; filename="package-bmad-method.zip"; filename*=UTF-8''${encodeURIComponent('客服工作台')}-bmad-method.zip`, 'bmad-method')).toBe('客服工作台-bmad-method.zip');
    expect(await savedAs('attachment; filename="support-desk.bmad"')).toBe('support-desk.bmad');
    expect(await savedAs(null)).toBe('package.bmad');
  });

  it('can only name a file in the download folder: path separators, quotes and control characters go', () => {
    expect(attachmentFileName(`attachment; filename*=UTF-8''..%2F..%2F.bashrc%0D%0Aevil%22.bmad`, 'package.bmad')).toBe('bashrc evil.bmad');
    expect(attachmentFileName(`attachment; filename*=UTF-8''%2F%2F%2F; filename="..\\\\win.ini"`, 'package.bmad')).toBe('win.ini');
    expect(attachmentFileName('attachment; filename="../"', 'package.bmad')).toBe('package.bmad');
    // Not UTF-8 percent-encoding: the plain name.
    expect(attachmentFileName(`attachment; filename="plan.bmad"; filename*=UTF-8''%E5%AE`, 'package.bmad')).toBe('plan.bmad');
  });
});
