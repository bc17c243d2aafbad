// The text the demo model writes into files and summaries, in English or Chinese (the content language
// the prompt names, else Chinese when the package content is mostly CJK). One table, so every strategy speaks the same way.

import type { Lang } from './conversation.ts';

export interface Wording {
  checklistIntro: string;
  newStepTitle: (after: string) => string;
  newStepGoal: (after: string, next: string) => string;
  newStepInstructions: (after: string) => string[];
  newStepCompletion: (nodeId: string, next: string | null) => string[];
  persona: { style: string; principle: string };
  newAgent: { name: string; title: string; description: string; role: string; identity: string; style: string; principles: string[]; actions: string[] };
  reviewChecklistTitle: string;
  reviewChecklist: string[];
  newAssetTitle: string;
  newAssetIntro: string;
  beforeYouStartTitle: string;
  beforeYouStart: string[];
  /** The "Before you start" checklist a step of its own conventions (no Instructions) gets. */
  stepBeforeYouStart: string[];
  newWorkflow: { title: string; goal: string; howToRun: string[]; steps: Array<{ id: string; title: string; goal: string; instructions: string[] }> };
  demoNote: string;
  nextSteps: string;
}

const EN: Wording = {
  checklistIntro: 'Work through this checklist in order; tick each item before you move on:',
  newStepTitle: (after) => `Review: ${after}`,
  newStepGoal: (after, next) => `Check what "${after}" produced before the workflow moves on to "${next}", so mistakes are caught while they are cheap to fix.`,
  newStepInstructions: (after) => [
    `Re-read the outputs of "${after}" and compare them with its Completion criteria.`,
    'List every gap or open question, and who can answer it.',
    'Fix what you can now; record the rest as open items for the next step.',
    'Confirm the result with the person who asked for this work.',
  ],
  newStepCompletion: (nodeId, next) => [
    '- Every gap is fixed or recorded as an open item.',
    next ? `- Append \`${nodeId}\` to \`stepsCompleted\` and set \`currentNodeId\` to \`${next}\`.` : `- Append \`${nodeId}\` to \`stepsCompleted\`.`,
  ],
  persona: {
    style: 'Leads with the answer, then the reasons, and ends by naming the next step and who owns it.',
    principle: 'State assumptions explicitly and flag anything that needs a human decision',
  },
  newAgent: {
    name: 'Quinn',
    title: 'Quality Reviewer',
    description: "Reviews each step's output against its completion criteria before the workflow moves on.",
    role: 'Quality reviewer for the workflows of this package',
    identity: 'A careful reviewer who has seen many hand-offs go wrong. Reads every output as its next reader would, and asks for evidence rather than assurances.',
    style: 'Short and specific: names the gap, where it is, and what would close it.',
    principles: ['Check the output against the completion criteria, not against taste', 'Every finding names its evidence', 'Open items have an owner and a date'],
    actions: ['Read the completion criteria of the step under review before its output'],
  },
  reviewChecklistTitle: 'Review checklist',
  reviewChecklist: ['- [ ] Every placeholder is filled, or marked "n/a" with a reason.', '- [ ] Figures and dates match their sources.', '- [ ] The owner of every open item is named.'],
  newAssetTitle: 'Review checklist',
  newAssetIntro: 'Use this checklist before a step hands its output to the next one.',
  beforeYouStartTitle: 'Before you start',
  beforeYouStart: ['1. [ ] Make sure you have the inputs the first step names.', '2. [ ] Agree who owns the run and who approves its outcome.', '3. [ ] Note any deadline in the decision log.'],
  stepBeforeYouStart: [
    '1. [ ] Read the whole step before you act on any part of it.',
    '2. [ ] Check that the files and answers this step relies on are at hand.',
    '3. [ ] Know which way out you will take when the step is done.',
  ],
  newWorkflow: {
    title: 'Review cycle',
    goal: 'Prepare a piece of work, review it against agreed criteria, and close it with a recorded outcome.',
    howToRun: ['Read this frontmatter: `currentNodeId`, `stepsCompleted` and `variables`.', 'Open the step file of the current node and follow its instructions.', 'After each step, update this frontmatter and move along the graph.'],
    steps: [
      { id: 'prepare', title: 'Prepare the work', goal: 'Collect the material to review and the criteria it must meet.', instructions: ['Ask for the material and where it came from.', 'Write down the review criteria and who agreed them.'] },
      { id: 'review', title: 'Review against the criteria', goal: 'Check the material against every criterion and record the findings.', instructions: ['Go through the criteria one by one.', 'Record each finding with its evidence.'] },
      { id: 'close', title: 'Close the review', goal: 'Record the outcome and tell everyone involved.', instructions: ['Summarise the findings and the decision.', 'Send the summary to the requester and file it.'] },
    ],
  },
  demoNote: '(Scripted demo model: a deterministic offline demo, not a real AI.)',
  nextSteps: 'Review the diff, then apply it, or ask me to "make it shorter" or "undo that".',
};

const ZH: Wording = {
  checklistIntro: '按顺序完成以下清单，每完成一项再进入下一项：',
  newStepTitle: (after) => `复核：${after}`,
  newStepGoal: (after, next) => `在流程进入"${next}"之前，复核"${after}"的产出，趁早发现问题。`,
  newStepInstructions: (after) => [`重新阅读"${after}"的产出，并与其完成标准逐条对照。`, '列出所有缺口和待确认的问题，并注明谁能回答。', '能当场修正的立即修正，其余记为下一步的待办事项。', '与提出这项工作的人确认结果。'],
  newStepCompletion: (nodeId, next) => [
    '- 每个缺口都已修正或记为待办事项。',
    next ? `- 将 \`${nodeId}\` 追加到 \`stepsCompleted\`，并把 \`currentNodeId\` 设为 \`${next}\`。` : `- 将 \`${nodeId}\` 追加到 \`stepsCompleted\`。`,
  ],
  persona: { style: '先给结论，再说明理由，最后指明下一步以及负责人。', principle: '明确说出假设，凡需要人来决定的事项都要标出' },
  newAgent: {
    name: '青',
    title: '质量复核员',
    description: '在流程继续之前，按完成标准复核每一步的产出。',
    role: '本包各流程的质量复核员',
    identity: '一位细致的复核者，见过许多交接出错的情形。以下一位读者的眼光阅读每份产出，要证据而不要保证。',
    style: '简短具体：指出缺口、所在位置以及如何补上。',
    principles: ['按完成标准而不是个人喜好来复核', '每条发现都注明证据', '每个待办事项都有负责人和日期'],
    actions: ['复核某一步的产出之前，先阅读该步的完成标准'],
  },
  reviewChecklistTitle: '复核清单',
  reviewChecklist: ['- [ ] 所有占位符都已填写，或注明"不适用"及原因。', '- [ ] 数字和日期与来源一致。', '- [ ] 每个待办事项都写明了负责人。'],
  newAssetTitle: '复核清单',
  newAssetIntro: '在某一步把产出交给下一步之前，使用本清单进行检查。',
  beforeYouStartTitle: '开始之前',
  beforeYouStart: ['1. [ ] 确认已备齐第一步所需的输入。', '2. [ ] 约定本次运行的负责人和结果的审批人。', '3. [ ] 在决策日志中记下截止日期。'],
  stepBeforeYouStart: ['1. [ ] 先通读整个步骤，再开始执行其中任何部分。', '2. [ ] 确认本步骤依赖的文件和答复都已备齐。', '3. [ ] 明确本步骤完成后走哪条出口。'],
  newWorkflow: {
    title: '复核流程',
    goal: '准备一项工作，按约定标准进行复核，并记录结论后关闭。',
    howToRun: ['阅读本文件的 frontmatter：`currentNodeId`、`stepsCompleted` 和 `variables`。', '打开当前节点的步骤文件并按其说明执行。', '每完成一步，更新 frontmatter 并沿流程图前进。'],
    steps: [
      { id: 'prepare', title: '准备工作', goal: '收集待复核的材料及其必须满足的标准。', instructions: ['索取材料并确认其来源。', '写下复核标准以及由谁确认。'] },
      { id: 'review', title: '按标准复核', goal: '逐条对照标准检查材料并记录发现。', instructions: ['逐条检查每项标准。', '记录每条发现及其证据。'] },
      { id: 'close', title: '结束复核', goal: '记录结论并通知相关人员。', instructions: ['总结发现和决定。', '将总结发送给申请人并归档。'] },
    ],
  },
  demoNote: '（脚本演示模型：确定性的离线演示，并非真正的 AI。）',
  nextSteps: '请查看差异后再应用，或者让我"精简一些"或"撤销"。',
};

export function wording(lang: Lang): Wording {
  return lang === 'zh' ? ZH : EN;
}
