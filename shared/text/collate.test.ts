import { describe, expect, it } from 'vitest';
import { compareNames, sortByName } from './collate.ts';

describe('sorting names', () => {
  it('sorts Chinese names by pinyin, not by code point', () => {
    expect(['张三', '李四', '阿里'].sort(compareNames)).toEqual(['阿里', '李四', '张三']);
    expect(['需求评审', '项目周报', '报销审批'].sort(compareNames)).toEqual(['报销审批', '项目周报', '需求评审']);
  });

  it('keeps each script together (CLDR zh order: Chinese, then Latin), ignores case and accents, and reads digits as numbers', () => {
    expect(['vendor', '需求评审', 'Alpha', '阿里', 'émile'].sort(compareNames)).toEqual(['阿里', '需求评审', 'Alpha', 'émile', 'vendor']);
    expect(['step 10', 'step 2'].sort(compareNames)).toEqual(['step 2', 'step 10']);
  });

  it('breaks ties with the given key, so equal names keep one order', () => {
    const rows = [{ name: 'Alpha', id: 'b' }, { name: 'alpha', id: 'a' }, { name: 'Beta', id: 'c' }];
    expect(sortByName(rows, (r) => r.name, (r) => r.id).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });
});
