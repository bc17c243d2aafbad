/** Chinese words of the parts loaded after a first paint (see en/page-words.ts). */
import type { Messages } from '../catalogue.ts';

export const pageWords: Messages['pageWords'] = {
  graph: {
    edgeNoLabel: '（无标签）',
    edgeDefaultLabel: '{{label}} · 默认',
    edgeAria: '从 {{from}} 到 {{to}} 的连线：{{label}}',
  },
  history: {
    overridden: '已越过审批',
    overriddenBy: '{{name}} 为这次 AI 修改越过了必需的审批。理由：“{{reason}}”',
  },
};
