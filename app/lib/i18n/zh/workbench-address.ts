/** 简体中文：工作台地址（查询参数：目标类型、模式、ID）哪里不对。 */
import type { Messages } from '../catalogue.ts';

export const workbenchAddress: Messages['workbenchAddress'] = {
  missing: '地址缺少 {{name}}：请说明{{what}}（{{name}}={{values}}）。',
  notOneOf: '“{{input}}”不是有效的 {{name}}；请使用以下之一：{{values}}。',
  whatTargetType: 'AI 要处理什么',
  whatMode: '是新建内容还是优化现有内容',
  badWorkflowId: '“{{id}}”不是有效的工作流 ID。',
  workflowNeedsId: '优化工作流需要它的 ID：请添加 workflowId=<id>。',
  differentWorkflows: 'targetId “{{targetId}}” 与 workflowId “{{workflowId}}” 指向不同的工作流。',
  stepNeedsWorkflow: '步骤属于某个工作流：请添加 workflowId=<id>。',
  stepNeedsId: '优化步骤需要它的节点 ID：请添加 targetId=<nodeId>。',
  badNodeId: '“{{id}}”不是有效的节点 ID。',
  agentNeedsId: '优化智能体需要它的 ID：请添加 targetId=<agentId>。',
  badAgentId: '“{{id}}”不是有效的智能体 ID。',
  assetNeedsPath: '优化资源需要它的路径：请添加 targetId=assets/…。',
};
