/** 简体中文：表单无法提交某个值时的提示（共享契约的 zod 问题、服务器返回的字段详情）。 */
import type { Messages } from '../catalogue.ts';

export const forms: Messages['forms'] = {
  required: '请填写此项。',
  tooShort_one: '至少需要 {{count}} 个字符。',
  tooShort_other: '至少需要 {{count}} 个字符。',
  tooLong_one: '最多 {{count}} 个字符。',
  tooLong_other: '最多 {{count}} 个字符。',
  tooSmall: '请输入不小于 {{minimum}} 的数字。',
  tooBig: '请输入不大于 {{maximum}} 的数字。',
  wholeNumber: '请输入整数。',
  email: '请输入有效的邮箱地址。',
  format: '该值的格式不正确。',
  packageId: '只能使用字母、数字和 . _ : -（须以字母或数字开头）。',
  version: '请使用类似 1.0.0 的版本号。',
  apiKey: 'API 密钥只能包含可见的 ASCII 字符，不能有空格。',
  wrongType: '该值的类型不正确。',
  choose: '请从给出的选项中选择一个。',
  unknownFields: '未知字段：{{fields}}。',
  nothingToChange: '没有需要修改的内容。',
  rejected: '服务器未接受该值。',
  invalid: '请检查该值。',
  name: '请输入名称。',
  approvals: '请输入 0 到 10 之间的数字。',
};
