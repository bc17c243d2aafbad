import { describe, expect, it } from 'vitest';
import { parseWorkbenchQuery, workbenchSearch, type AiTarget } from './ai-target.ts';

const parse = (query: string) => parseWorkbenchQuery(new URLSearchParams(query));

function problems(query: string): Array<{ field: string; message: string }> {
  const result = parse(query);
  if (result.ok) throw new Error(`expected problems for ${query}`);
  return result.problems;
}

function target(query: string): AiTarget {
  const result = parse(query);
  if (!result.ok) throw new Error(`expected a target for ${query}: ${JSON.stringify(result.problems)}`);
  return result.target;
}

describe('parseWorkbenchQuery', () => {
  it('reads a step to optimize', () => {
    expect(target('workflowId=expense-check&targetType=step&targetId=step-01&mode=optimize')).toEqual({
      targetType: 'step',
      mode: 'optimize',
      targetId: 'step-01',
      workflowId: 'expense-check',
    });
  });

  it('lets a workflow be named by workflowId or targetId, and fills in the other', () => {
    const expected = { targetType: 'workflow', mode: 'optimize', targetId: 'wf', workflowId: 'wf' };
    expect(target('targetType=workflow&mode=optimize&workflowId=wf')).toEqual(expected);
    expect(target('targetType=workflow&mode=optimize&targetId=wf')).toEqual(expected);
  });

  it('creates a workflow, an agent or an asset without naming one', () => {
    expect(target('targetType=workflow&mode=create')).toEqual({ targetType: 'workflow', mode: 'create' });
    expect(target('targetType=agent&mode=create')).toEqual({ targetType: 'agent', mode: 'create' });
    expect(target('targetType=asset&mode=create')).toEqual({ targetType: 'asset', mode: 'create' });
  });

  it('treats a blank id as absent', () => {
    expect(target('targetType=agent&mode=create&targetId=%20%20')).toEqual({ targetType: 'agent', mode: 'create' });
    expect(problems('targetType=agent&mode=optimize&targetId=%20')).toEqual([
      { field: 'targetId', message: 'Optimizing an agent needs its id: add targetId=<agentId>.' },
    ]);
  });

  it('reports a missing targetType and mode together, saying what each is for', () => {
    expect(problems('')).toEqual([
      { field: 'targetType', message: 'The address has no targetType: say what the AI should work on (targetType=workflow|step|agent|asset).' },
      {
        field: 'mode',
        message: 'The address has no mode: say whether to create something new or optimize what exists (mode=create|optimize).',
      },
    ]);
  });

  it('names the allowed values for an unknown one', () => {
    expect(problems('targetType=robot&mode=optimize')).toEqual([
      { field: 'targetType', message: '"robot" is not a targetType; use one of workflow, step, agent, asset.' },
    ]);
  });

  it('reports every problem of a step address, not only the first', () => {
    expect(problems('targetType=step&mode=optimize').map((p) => p.field)).toEqual(['workflowId', 'targetId']);
  });

  it('refuses a workflow address whose two ids disagree', () => {
    expect(problems('targetType=workflow&mode=optimize&workflowId=a&targetId=b')).toEqual([
      { field: 'targetId', message: 'targetId "b" and workflowId "a" name different workflows.' },
    ]);
  });

  it('refuses ids that are not package ids, and asset paths outside assets/', () => {
    expect(problems('targetType=workflow&mode=optimize&workflowId=../etc')[0]).toEqual({
      field: 'workflowId',
      message: '"../etc" is not a valid workflow id.',
    });
    expect(problems('targetType=step&mode=optimize&workflowId=wf&targetId=a%2Fb')[0]?.message).toBe('"a/b" is not a valid node id.');
    expect(problems('targetType=agent&mode=optimize&targetId=-x')[0]?.message).toBe('"-x" is not a valid agent id.');
    const asset = problems('targetType=asset&mode=optimize&targetId=../secrets.md');
    expect(asset).toHaveLength(1);
    expect(asset[0]?.field).toBe('targetId');
  });

  it('keeps a source that is a page of this site and drops one elsewhere', () => {
    expect(parse('targetType=workflow&mode=create&source=%2Fprojects%2Fp1').source).toBe('/projects/p1');
    expect(parse('targetType=workflow&mode=create&source=https%3A%2F%2Fevil.example%2F').source).toBeUndefined();
    expect(parse('targetType=workflow&mode=create&source=%2F%2Fevil.example').source).toBeUndefined();
    // The source comes back with the problems too, so the error page can link back.
    expect(parse('mode=create&source=%2Fprojects%2Fp1')).toMatchObject({ ok: false, source: '/projects/p1' });
  });
});

describe('workbenchSearch', () => {
  it('builds an address that parses back to the same target and source', () => {
    const targets: AiTarget[] = [
      { targetType: 'step', mode: 'optimize', targetId: 'step-01', workflowId: 'expense-check' },
      { targetType: 'workflow', mode: 'optimize', targetId: 'wf', workflowId: 'wf' },
      { targetType: 'asset', mode: 'optimize', targetId: 'assets/templates/report.md' },
      { targetType: 'agent', mode: 'create' },
    ];
    for (const t of targets) {
      expect(parse(workbenchSearch(t, '/projects/p1'))).toEqual({ ok: true, target: t, source: '/projects/p1' });
    }
  });

  it('leaves out what the target does not have', () => {
    expect(workbenchSearch({ targetType: 'agent', mode: 'create' })).toBe('targetType=agent&mode=create');
  });
});

describe('workbench address problems in Chinese', () => {
  it('says what is missing or wrong in the reader’s language, with the field names and values as they are', async () => {
    const { useLocale } = await import('./i18n/i18n.svelte.ts');
    await useLocale('zh');
    try {
      expect(problems('targetType=agent&mode=optimize')).toEqual([{ field: 'targetId', message: '优化智能体需要它的 ID：请添加 targetId=<agentId>。' }]);
      expect(problems('targetType=robot&mode=create')[0]?.message).toBe('“robot”不是有效的 targetType；请使用以下之一：workflow, step, agent, asset。');
      expect(problems('targetType=step&mode=optimize&workflowId=wf&targetId=a%2Fb')[0]?.message).toBe('“a/b”不是有效的节点 ID。');
      const asset = problems('targetType=asset&mode=optimize&targetId=..%2Fx.md')[0]?.message ?? '';
      expect(asset).toMatch(/[\u4e00-\u9fff]/u);
      expect(asset).not.toMatch(/[A-Za-z]{3,} [A-Za-z]{3,}/u);
    } finally {
      await useLocale('en');
    }
  });
});
