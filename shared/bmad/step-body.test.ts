import { describe, expect, it } from 'vitest';
import { markdownSections, titleMatches } from './markdown-sections.ts';
import { checkStepBody } from './step-body.ts';

const codes = (body: string) => checkStepBody(body, 's.md').map((i) => [i.severity, i.code]);

describe('checkStepBody', () => {
  it('accepts Goal and Instructions, with or without Completion', () => {
    expect(checkStepBody('# T\n\n## Goal\n\nDo it.\n\n## Instructions\n\n1. Step.\n', 's.md')).toEqual([]);
    expect(checkStepBody('## Goal\nx\n## Instructions\ny\n## Completion\nz\n', 's.md')).toEqual([]);
  });

  it('matches headings case-insensitively, with a parenthesised suffix', () => {
    expect(checkStepBody('## GOAL (what this step achieves)\nx\n## instructions（给 LLM）\ny\n## Completion (Document-as-State)\nz\n', 's.md')).toEqual([]);
  });

  it('requires ## Goal and ## Instructions', () => {
    expect(checkStepBody('## Instructions\ny\n', 'steps/a.md')).toEqual([
      expect.objectContaining({ severity: 'error', code: 'STEP_MISSING_GOAL', filePath: 'steps/a.md', message: 'The step has no "## Goal" section.' }),
    ]);
    expect(codes('## Goal\nx\n')).toEqual([['error', 'STEP_MISSING_INSTRUCTIONS']]);
    expect(codes('')).toEqual([
      ['error', 'STEP_MISSING_GOAL'],
      ['error', 'STEP_MISSING_INSTRUCTIONS'],
    ]);
  });

  it('does not accept other heading levels or near-miss titles, and says why', () => {
    const [issue] = checkStepBody('### Goal\nx\n## Instructions\ny\n', 's.md', 10);
    expect(issue).toMatchObject({ code: 'STEP_MISSING_GOAL' });
    expect(issue!.hint).toContain('Line 10 has "### Goal"');
    expect(codes('## Goals\nx\n## Instructions\ny\n')).toEqual([['error', 'STEP_MISSING_GOAL']]);
  });

  it('ignores headings inside fenced code blocks', () => {
    expect(codes('```md\n## Goal\n```\n## Instructions\ny\n')).toEqual([['error', 'STEP_MISSING_GOAL']]);
  });

  it('warns on an empty section, citing the file line', () => {
    const issues = checkStepBody('\n## Goal\n\n<!-- todo -->\n\n## Instructions\ny\n## Completion\n', 's.md', 12);
    expect(issues).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'STEP_EMPTY_SECTION', message: 'The "## Goal" section (line 13) is empty.' }),
      expect.objectContaining({ severity: 'warning', code: 'STEP_EMPTY_SECTION', message: 'The "## Completion" section (line 19) is empty.' }),
    ]);
  });

  it('counts sub-headings as content, and warns on a repeated section', () => {
    expect(codes('## Goal\n### Detail\ntext\n## Instructions\ny\n')).toEqual([]);
    expect(codes('## Goal\nx\n## Instructions\ny\n## Goal\nz\n')).toEqual([['warning', 'STEP_DUPLICATE_SECTION']]);
  });
});

describe('checkStepBody of a step imported from BMAD-METHOD', () => {
  const bmad = (body: string) => checkStepBody(body, 's.md', 1, { bmadMethod: true });

  it("takes the v6 step headings for the sections: YOUR TASK as the goal, a … SEQUENCE as the instructions", () => {
    const v6 = '# Step 2: Talk\n\n## MANDATORY EXECUTION RULES (READ FIRST):\n\n- Stay in character.\n\n## YOUR TASK:\n\nRun the discussion.\n\n## DISCUSSION ORCHESTRATION SEQUENCE:\n\n### 1. Pick voices\n\nPick three.\n';
    expect(bmad(v6)).toEqual([]);
    expect(bmad('## STEP GOAL:\nx\n## Sequence of Instructions\ny\n')).toEqual([]);
    expect(bmad('## Your Task\nx\n## INITIALIZATION SEQUENCE:\ny\n')).toEqual([]);
  });

  it('takes no other heading for them (rules and protocols are not the instructions), and names the BMAD heading in the hint', () => {
    const issues = bmad('## EXECUTION PROTOCOLS:\n\n- Show your work.\n\n## CONTEXT BOUNDARIES:\n\n- Only this step.\n\n## SEQUENCE OF EVENTS LOG\n');
    expect(issues.map((i) => [i.severity, i.code])).toEqual([
      ['warning', 'STEP_MISSING_GOAL'],
      ['warning', 'STEP_MISSING_INSTRUCTIONS'],
    ]);
    expect(issues[0]!.hint).toBe('Add a "## Goal" heading (or BMAD\'s "## YOUR TASK:") and write under it what this step achieves.');
    // A .bmad step keeps the format's own headings.
    expect(codes('## YOUR TASK:\nx\n## INITIALIZATION SEQUENCE:\ny\n')).toEqual([
      ['error', 'STEP_MISSING_GOAL'],
      ['error', 'STEP_MISSING_INSTRUCTIONS'],
    ]);
  });

  it('says in plain words what an empty section needs', () => {
    expect(checkStepBody('## Goal\n\n## Instructions\ny\n', 's.md').map((i) => i.hint)).toEqual(['Under the heading, write what this step achieves; or remove the heading.']);
    expect(checkStepBody('## Goal\nx\n## Instructions\n\n', 's.md').map((i) => i.hint)).toEqual(['Under the heading, write how this step is done; or remove the heading.']);
  });
});

describe('markdownSections', () => {
  it('ends a section at the next heading of the same or a higher level', () => {
    const sections = markdownSections('# A\na\n## B\nb\n### C\nc\n## D\nd');
    expect(sections.map((s) => [s.level, s.title, s.line, s.content])).toEqual([
      [1, 'A', 1, 'a\n## B\nb\n### C\nc\n## D\nd'],
      [2, 'B', 3, 'b\n### C\nc'],
      [3, 'C', 5, 'c'],
      [2, 'D', 7, 'd'],
    ]);
  });

  it('gives what a line-by-line reading gave, on a seeded fuzz of Markdown with fences and CRLF', () => {
    // The definition before it read by offsets: split into lines (CR dropped), sections joined back.
    const byLines = (text: string) => {
      const lines = text.split('\n').map((l) => l.replace(/\r$/u, ''));
      const headings: Array<{ level: number; title: string; index: number }> = [];
      let fence: string | null = null;
      lines.forEach((line, index) => {
        if (fence !== null) {
          const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/u.exec(line)?.[1];
          if (close && close[0] === fence[0] && close.length >= fence.length) fence = null;
          return;
        }
        const open = /^ {0,3}(`{3,}|~{3,})/u.exec(line)?.[1];
        if (open) {
          fence = open;
          return;
        }
        const heading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/u.exec(line);
        if (heading?.[1]) headings.push({ level: heading[1].length, title: (heading[2] ?? '').trim(), index });
      });
      return headings.map((h, i) => {
        const next = headings.slice(i + 1).find((n) => n.level <= h.level);
        return { level: h.level, title: h.title, line: h.index + 1, content: lines.slice(h.index + 1, next ? next.index : lines.length).join('\n') };
      });
    };
    const pieces = ['# A', '## Goal', '### Sub ##', '####### x', '#no', '   ## Indented', '    ## code', 'text', '', ' ', '```', '~~~~', '``` js', '\t## tab', '## ', '#', 'a\r', '\r', '## T\r'];
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 1_000_003;
    for (let round = 0; round < 3_000; round++) {
      const lines = Array.from({ length: next() % 12 }, () => pieces[next() % pieces.length]!);
      const eol = next() % 3 === 0 ? '\r\n' : '\n';
      const text = lines.join(eol) + (next() % 2 === 0 ? eol : '');
      expect(markdownSections(text), JSON.stringify(text)).toEqual(byLines(text));
    }
  });

  it('strips a closing #-sequence', () => {
    expect(markdownSections('## Goal ##\nx')[0]!.title).toBe('Goal');
  });

  it('matches titles', () => {
    expect(titleMatches('Steps Index', 'steps index')).toBe(true);
    expect(titleMatches('Goal (a)', 'Goal')).toBe(true);
    expect(titleMatches('Goal: x', 'Goal')).toBe(false);
  });
});
