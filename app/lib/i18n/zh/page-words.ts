/** Chinese words of the parts loaded after a first paint (see en/page-words.ts). */
import type { Messages } from '../catalogue.ts';

export const pageWords: Messages['pageWords'] = {
  graph: {
    edgeNoLabel: '（无标签）',
    edgeDefaultLabel: '{{label}} · 默认',
    edgeAria: '从 {{from}} 到 {{to}} 的连线：{{label}}',
    controls: '图视图控制',
    zoomIn: '放大',
    zoomOut: '缩小',
    fitView: '适应视图，显示整个图',
    handle: '连接点',
    nodeHelp: '按 Enter 或空格键打开步骤。方向键移动所选步骤，Delete 删除，Esc 取消。',
    edgeHelp: '按 Enter 或空格键编辑连线。Delete 删除，Esc 取消。',
    moved: '已将步骤向{{direction}}移动。新位置：x {{x}}，y {{y}}。',
    directions: { left: '左', right: '右', up: '上', down: '下' },
  },
  history: {
    overridden: '已越过审批',
    overriddenBy: '{{name}} 为这次 AI 修改越过了必需的审批。理由：“{{reason}}”',
  },
};
