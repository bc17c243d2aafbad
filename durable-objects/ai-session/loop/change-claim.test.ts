/** The claim reader of honest endings: what real models write when they only say they changed something. */
import { describe, expect, it } from 'vitest';
import { appliedClaim, changeClaim } from './change-claim.ts';

const STEP_FILE = ['```markdown', '---', 'id: classify-issue', '---', '# Classify the issue', '', 'Read the ticket.', 'Cite the policy section.', '```'].join('\n');

describe('a change claimed in words', () => {
  it.each([
    "I've updated the step to cite the policy section.",
    'I have added a rule for refunds.',
    'Sure! I updated the goal and tightened the instructions.',
    'We have now rewritten the step.',
    'I made the changes you asked for.',
    'The classify-issue step has been updated.',
    'Updated classify-issue to cite the policy section.',
    '- Added a citation rule\n- Removed the old check',
    "Here's the updated step: it now cites the policy.",
    '已更新步骤，加入了引用政策的规则。',
    '我修改了步骤的目标。',
    '步骤已经优化完成。',
    '我对步骤做了以下修改：加入了引用规则。',
    '以下是更新后的步骤内容：',
  ])('claims a change: %j', (text) => {
    expect(changeClaim(text)).toBe('claim');
  });

  it.each([
    'I have not changed anything.',
    "I haven't updated the step yet; tell me which rule you want.",
    'No change needed: the step already cites the policy.',
    'Nothing has been changed.',
    'I changed nothing, the step is fine.',
    'Should I update the step to cite the policy section?',
    'Would you like me to add a refund rule?',
    'If I had added the rule, the step would be longer.',
    'The step reads the ticket and classifies it into one of three queues.',
    '我没有修改任何内容。',
    '无需修改：步骤已经引用了政策。',
    '需要我更新这个步骤吗？',
    '这个步骤读取工单并分类。',
    'I updated the goal in the previous turn; that version is still staged for review.',
    'As I explained earlier, I added the refund rule and you can see it in the changes.',
    '上一轮我已更新了步骤的目标，修改仍在草稿中。',
  ])('claims nothing: %j', (text) => {
    expect(changeClaim(text)).toBeNull();
  });
});

describe('file contents in the answer', () => {
  it('reads a long Markdown, JSON or YAML block as new contents', () => {
    expect(changeClaim(`The step could look like this:\n${STEP_FILE}`)).toBe('contents');
    const json = ['```json', '{', '  "agents": [', '    {', '      "id": "triage"', '    }', '  ]', '}', '```'].join('\n');
    expect(changeClaim(json)).toBe('contents');
  });

  it('does not count a short snippet, code in another language, or contents shown with a plain "no change"', () => {
    expect(changeClaim('Use a heading:\n```markdown\n# Classify\n```')).toBeNull();
    const python = ['```python', ...Array.from({ length: 10 }, (_, i) => `x${i} = ${i}`), '```'].join('\n');
    expect(changeClaim(python)).toBeNull();
    expect(changeClaim(`I made no change. The step as it is now:\n${STEP_FILE}`)).toBeNull();
    expect(changeClaim(`我没有做任何修改，当前步骤如下：\n${STEP_FILE}`)).toBeNull();
  });

  it('reads claims outside code blocks only', () => {
    expect(changeClaim('```text\nI have updated the step.\n```')).toBeNull();
  });
});

// Suggest-only turns cannot stage: a proposal (new contents included) is the expected answer there.
describe('in a suggest-only turn', () => {
  it.each([
    "I've updated the step as requested.",
    '我已经更新了 classify-issue 步骤的目标。',
    "I've updated the step's goal; it is ready to apply.",
    'The classify-issue step has been updated.',
  ])('still reads a claim that a change was made: %j', (text) => {
    expect(changeClaim(text, { suggestOnly: true })).toBe('claim');
  });

  it.each([
    'I suggest changing the goal to "Classify each ticket and cite the policy section".',
    'You could add a rule that cites the policy section.',
    `I suggest this text for the step:\n${STEP_FILE}`,
    `Here is the revised step I would propose:\n${STEP_FILE}`,
    '建议将目标改为“分类工单并引用政策条款”。',
    '以下是建议修改后的步骤：',
  ])('does not read a suggestion as a claim: %j', (text) => {
    expect(changeClaim(text, { suggestOnly: true })).toBeNull();
  });
});

// What models write after staging: the AI only stages, a person applies, so "applied" or "live" is never true.
describe('a claim that a staged change was applied', () => {
  it.each([
    // GPT-4o-mini
    "I've applied the changes to the classify-issue step. The updated instructions are now live.",
    'The changes have been successfully applied to your workflow.',
    'Your workflow has been updated and the changes are now in effect.',
    "Done! I've updated the step's goal and applied the changes, so they're live now.",
    // DeepSeek
    '**Changes applied:**\n- Added a citation rule\n- Tightened the goal',
    '✅ The changes are now live in your workflow.',
    '1. Applied the refund rule to classify-issue.',
    'I have published the updated workflow.',
    'The update has been deployed.',
    'It is now live.',
    // Qwen
    'All changes have been applied successfully! The step now cites the policy section.',
    "I've saved the changes to the project.",
    '### Summary\n\nI updated the goal. Everything is now applied.',
    // Chinese
    '已应用修改，现在已生效。',
    '我已经更新了步骤的目标，修改已生效。',
    '修改已成功应用到项目中。',
    '已将修改应用到 classify-issue 步骤。',
    '- 已为您应用以上修改\n- 步骤现在会引用政策条款',
    '我应用了这些修改。',
    '新的工作流现已上线。',
    '修改生效了，你可以刷新看看。',
  ])('claims it was applied: %j', (text) => {
    expect(appliedClaim(text)).toBe(true);
  });

  it.each([
    "I've staged the changes for your review; once you apply them, they'll be live.",
    'The change is staged. It will be live after you apply it.',
    'Review the diff, then click Apply to make it live.',
    'The changes are ready to apply.',
    'Nothing is applied yet: a person reviews and applies the staged change.',
    'The changes are not applied yet.',
    "It isn't live until someone applies it.",
    'Should I apply the changes?',
    'Would you like me to publish the workflow?',
    'If the changes were applied, the step would cite the policy.',
    "I've applied your feedback to the draft.",
    'The rule I added is staged for review, not applied.',
    'You applied version 2 earlier, so this change builds on it.',
    '修改已暂存，待您审阅后应用。',
    '修改已暂存，应用后即可生效。',
    '修改尚未应用，请审阅后再应用。',
    '还没有生效：需要有人审阅并应用。',
    '需要我现在应用这些修改吗？',
    '一旦应用，修改就会生效。',
    '我已更新步骤的目标，修改已暂存在草稿中。',
    'I updated the goal and tightened the instructions.',
  ])('does not claim it was applied: %j', (text) => {
    expect(appliedClaim(text)).toBe(false);
  });

  it('reads words outside code blocks only', () => {
    expect(appliedClaim('```markdown\nThe changes are applied.\n```')).toBe(false);
  });
});
