/** 简体中文：资源文件（目录树、编辑器、资源文件页面）与逐行对比。 */
import type { Messages } from '../catalogue.ts';

export const assets: Messages['assets'] = {
  title: '资源文件',
  meta: '{{size}} · 更新于 {{date}} · 资源文件修订 {{revision}} ·',
  view: '视图',
  preview: '预览',
  edit: '编辑',
  source: '源文件',
  optimizeAi: '用 AI 优化资源文件',
  newAi: '用 AI 新建资源文件',
  rename: '重命名…',
  renameSubmit: '重命名',
  renaming: '正在重命名…',
  delete: '删除',
  deleteQuestion: '删除 {{path}}？',
  deleting: '正在删除…',
  newPath: '新路径',
  editorLabel: '资源文件 {{path}}',
  couldNotChange: '无法修改资源文件',
};

export const diff: Messages['diff'] = {
  before: '修改前',
  after: '修改后',
  created: '新建',
  deleted: '已删除',
  bothEmpty: '两个版本都是空的。',
  identical: '没有差异。',
  unchanged_one: '⋯ {{count}} 行未改动',
  unchanged_other: '⋯ {{count}} 行未改动',
};

export const assetsPage: Messages['assetsPage'] = {
  newAsset: '新建资源文件',
  path: '路径',
  couldNotCreate: '无法创建资源文件',
  creating: '正在创建…',
  create: '创建资源文件',
  content: '内容',
  contentNote: '（可选；创建后可再编辑）',
  pick: '选择一个资源文件',
  pickHintEdit: '在目录树中选择一个文件以预览和编辑。',
  pickHint: '在目录树中选择一个文件以预览。',
  couldNotOpen: '无法打开 {{path}}',
};
