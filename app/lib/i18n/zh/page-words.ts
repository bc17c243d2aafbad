/** Chinese words of the parts loaded after a first paint (see en/page-words.ts). */
import type { Messages } from '../catalogue.ts';

export const pageWords: Messages['pageWords'] = {
  graph: {
    /** 画布编辑的问题（shared/bmad/graph-edit-rules.ts），按其代码。 */
    problem: {
      notJson: '新的图不是有效的 JSON。',
      schema: '图在 {{pointer}} 处不符合结构定义：{{detail}}',
      duplicateId: '有两个步骤的 id 都是“{{id}}”。',
      startDeleted: '“{{id}}”是起始步骤，不能删除。请先把另一个步骤设为起始步骤。',
      startMissing: '起始步骤“{{id}}”不是图中的步骤。',
      edgeFromMissing: '连线“{{label}}”的起点“{{id}}”不是图中的步骤。',
      edgeToMissing: '连线“{{label}}”指向的“{{id}}”不是图中的步骤。',
      noStepFileToDelete: '没有“{{id}}”的步骤文件可删除。',
      stepFileInGraph: '“{{id}}”的步骤仍在图中，不能删除它的步骤文件。',
      stepFileExists: '“{{id}}”的步骤文件已存在。',
      stepFileNeedsNode: '“{{id}}”的步骤文件需要图中有同一 id 的步骤。',
      stepPathNotAllowed: '步骤文件路径“{{path}}”不允许：请使用以 .md 结尾的相对路径。',
      stepPathTaken: '文件 {{path}} 已属于另一个步骤。',
    },
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
