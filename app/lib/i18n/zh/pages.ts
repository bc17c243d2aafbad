/** 简体中文：项目之外的页面——首页、错误页、外壳、项目列表。 */
import type { Messages } from '../catalogue.ts';

export const pages: Messages['pages'] = {
  opening: '正在打开你的项目…',
  notFound: '页面不存在',
  wentWrong: '出错了',
  nothingHere: '此地址没有内容。',
  couldNotShow: '无法显示该页面，请稍后重试。',
  goToProjects: '前往你的项目',
  couldNotCheckSignIn: '无法检查你的登录状态',
  redirecting: '正在跳转到登录页…',
};

export const projects: Messages['projects'] = {
  title: '项目',
  lead: '每个项目是一个 .bmad 包：工作流、智能体和资源文件。',
  yours: '你的项目',
  total: '共 {{count}} 个',
  couldNotLoad: '无法加载你的项目',
  empty: '还没有项目——创建第一个吧',
  emptyHint: '在右侧为它命名；之后可以再描述它的领域。',
  workflows_one: '{{count}} 个工作流',
  workflows_other: '{{count}} 个工作流',
  agentsRev: '智能体修订 {{revision}}',
  assetsRev: '资源文件修订 {{revision}}',
  updated: '更新于 {{date}}',
  newProject: '新建项目',
  name: '名称',
  description: '描述',
  optional: '（可选）',
  couldNotCreate: '无法创建项目',
  created: '已创建',
  creating: '正在创建…',
  create: '创建项目',
  importTitle: '导入包',
  invitationsTitle: '给你的邀请',
  invitationsLead: '项目所有者邀请了你的邮箱。接受后即以所示角色加入项目。',
  couldNotLoadInvitations: '无法加载你的邀请',
  invitedBy: '邀请人：{{name}}',
  expiresOn: '{{date}} 到期',
  accept: '接受',
  accepting: '正在接受…',
  decline: '拒绝',
  declining: '正在拒绝…',
  couldNotAnswer: '无法回复此邀请',
};

export const network: Messages['network'] = {
  noUsableError: '服务器返回了状态 {{status}}，但没有可用的错误信息。',
  unreachable: '无法连接到服务器。',
  checkConnection: '请检查网络连接，稍后重试。',
  noReadableBody: '服务器返回了状态 {{status}}，但响应内容无法读取。',
  tryAgain: '请稍后重试。',
  unexpectedForm: '服务器返回了状态 {{status}}，但格式不符合预期。',
};
