/** 简体中文：各页面共用的小部件——角色、问题计数、确认按钮、加载错误、校验。 */
import type { Messages } from '../catalogue.ts';

export const roles: Messages['roles'] = {
  owner: '所有者',
  editor: '编辑者',
  viewer: '查看者',
};

export const widgets: Messages['widgets'] = {
  projectsCrumb: '项目',
  projectNotFound: '未找到项目',
  couldNotOpenProject: '无法打开项目',
  backToProjects: '返回项目列表',
  projectFallbackTitle: '项目',
  working: '处理中…',
  valid: '有效',
  errors_one: '{{count}} 个错误',
  errors_other: '{{count}} 个错误',
  warnings_one: '{{count}} 个警告',
  warnings_other: '{{count}} 个警告',
  assetPathTaken: '{{path}} 处已有资源文件。',
  assetPathTakenHint: '请换一个名称或文件夹。',
  assetPathOk: '✓ 资源文件路径有效。',
  assetPathRule: '须位于 assets/ 下，扩展名为 .md、.txt、.json、.yaml、.yml 或 .csv。',
  schemaFailed: '有文件尚不符合 .bmad 格式（见下方），因此尚未运行包规则检查。',
  readyToExport: '可以导出。',
  errorsBlockExport: '存在错误，无法导出。',
  checking: '正在检查…',
  checkAgain: '重新检查',
  couldNotValidate: '无法校验该包',
  noProblems: '没有问题：所有文件均符合 .bmad v1.1 规则。',
  showFewer: '收起',
  showAllProblems: '显示全部 {{count}} 个问题',
  history: '历史',
};

export const editing: Messages['editing'] = {
  conflictTitle: '有人保存了更新的版本——请重新加载。',
  conflictRevision: '当前保存的修订为 {{revision}}。',
  conflictBody: '你的文本仍保留在编辑器中：重新加载以更新基准，检查改动后再次保存。',
  reloading: '正在重新加载…',
  reload: '重新加载',
  unsaved: '有未保存的修改',
  savedRevision: '已保存——修订 {{revision}}',
  wholePackage: '整个包：',
  serverChecked: '服务器检查了已保存的文件（这些问题不会阻止保存）：',
  severityError: '错误',
  severityWarning: '警告',
  liveValidation: '实时校验',
  noProblemsInFile: '此文件没有问题。',
  couldNotSave: '无法保存 {{path}}',
};

export const mentions: Messages['mentions'] = {
  unread_one: '{{count}} 条未读提及',
  unread_other: '{{count}} 条未读提及',
  button: '@ 提及',
  failed: '无法加载提及，请稍后重试。',
  none: '没有未读提及。',
  mentionedYouBy: '在 {{project}} 中提及了你',
  theSession: '该会话',
  fileLine: '{{file}} 第 {{line}} 行',
  open: '打开{{where}}',
  gone: '该会话已不存在。',
};
