/** 简体中文目录：每个页面都加载的区域，文字为中文，键与 `en.ts` 相同（类型检查保证）。只有部分页面显示的区域（AI 工作台、图、AI 设置、历史、智能体、资源文件、导入）由各自的 `*-words.ts` 在显示处加入。 */
import type { LazyArea, Messages } from './catalogue.ts';
import { forms } from './zh/forms.ts';
import { editing, mentions, roles, widgets } from './zh/widgets.ts';
import { membersPage, overview, project, projectSettings, sessionsPage } from './zh/project.ts';
import { network, pages, projects } from './zh/pages.ts';
import { workbenchAddress } from './zh/workbench-address.ts';

export const zh: Omit<Messages, LazyArea> = {
  workbenchAddress,
  pages,
  network,
  projects,
  project,
  overview,
  projectSettings,
  membersPage,
  sessionsPage,
  roles,
  mentions,
  editing,
  widgets,
  forms,
  common: {
    product: 'CrewAgent Builder',
    productSuffix: 'AI 工作台',
    pageTitle: '{{page}} · CrewAgent Builder',
    cancel: '取消',
    close: '关闭',
    save: '保存',
    saving: '正在保存…',
    loading: '正在加载…',
    retry: '重试',
    continue: '继续',
    error: '错误',
    hint: '提示',
  },
  topBar: {
    mainNav: '主导航',
    projects: '项目',
    aiSettings: 'AI 设置',
    signOut: '退出登录',
    signingOut: '正在退出…',
    language: '语言',
    couldNotSignOut: '无法退出登录：{{message}}',
  },
  login: {
    title: '登录',
    lead: '借助 AI 助手编辑你的 .bmad 工作流包。',
    signedInAs: '你已登录为',
    email: '邮箱',
    password: '密码',
    submit: '登录',
    submitting: '正在登录…',
    noAccount: '还没有账号？',
    createOne: '创建一个',
  },
  register: {
    title: '创建账号',
    lead: '你将拥有自己创建的项目，并可以邀请他人。',
    name: '姓名',
    email: '邮箱',
    password: '密码',
    passwordHint: '至少 10 个字符。',
    submit: '创建账号',
    submitting: '正在创建账号…',
    haveAccount: '已有账号？',
    signIn: '登录',
  },
  time: {
    justNow: '刚刚',
  },
  contentLanguage: {
    label: '内容语言',
    hint: '这个工作流包所用的语言。AI 用它撰写暂存的内容，并用每个人自己的语言回答。导入时自动识别。',
    readonly: '内容使用{{language}}撰写。',
    save: '保存',
    saving: '正在保存…',
    saved: '已保存。',
    notSaved: '未保存',
  },
};
