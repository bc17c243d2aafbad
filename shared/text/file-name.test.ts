import { describe, expect, it } from 'vitest';
import { safeFileName } from './file-name.ts';

describe('safeFileName', () => {
  it('keeps a name in any script, and drops what could split a header or leave the folder', () => {
    expect(safeFileName('客服工作台.bmad')).toBe('客服工作台.bmad');
    expect(safeFileName("Support Desk (Ana's copy)*.bmad")).toBe("Support Desk (Ana's copy).bmad");
    expect(safeFileName('报告 "Q3"\r\nSet-Cookie: a=1; ../..\\etc/passwd.bmad')).toBe('报告 Q3 Set-Cookie a=1; .. .. etc passwd.bmad');
    expect(safeFileName('../../.bashrc')).toBe('bashrc');
    expect(safeFileName('evil\u202Egpj.bmad')).toBe('evil gpj.bmad');
    expect(safeFileName(' ../ ')).toBe('');
  });

  it("gives a Windows device name the export's portable form, so the file can be saved there", () => {
    expect(safeFileName('CON.bmad')).toBe('CON_.bmad');
    expect(safeFileName('nul')).toBe('nul_');
    expect(safeFileName('Console.bmad')).toBe('Console.bmad');
  });
});
