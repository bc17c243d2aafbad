/**
 * Edge labels from the text around a link (links.ts): the condition written above a link, with a
 * short caption between them, as the public product-brief init step hands over to its continuation
 * step. Each text here is written for the test in that shape; nothing else nearby (a heading, a
 * sentence, a condition further up) may become the label.
 */
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../bmad/pipeline.ts';
import { deriveBmadMethod } from './derive.ts';
import { exportBmadMethod } from './export.ts';
import { readStepText, stepLinks } from './links.ts';

const labels = (text: string) => Object.fromEntries(stepLinks(readStepText(text)).map((l) => [l.target, l.label]));

describe('a condition above a caption above the link', () => {
  it('labels the hand-over edge of a product-brief-shaped init step, and the package round-trips', () => {
    const start = [
      '---',
      "name: 'step-01-start'",
      "nextStepFile: './step-02-goals.md'",
      '---',
      '',
      '# Step 1: Start the Plan',
      '',
      '## Sequence of Instructions',
      '',
      '### 1. Look for an Earlier Plan',
      '',
      '- Search the output folder for a plan file',
      '',
      '### 2. Resume (When a Plan Exists)',
      '',
      'If the plan file is there and lists `stepsCompleted`:',
      '',
      '**Resume Procedure:**',
      '',
      '- **Halt here** and load `./step-01b-resume.md`',
      '- Skip every setup task below',
      '',
      '### 3. New Plan',
      '',
      '#### Menu Handling Logic:',
      '',
      '- Once the plan file is written, read fully and follow: {nextStepFile}',
      '',
    ].join('\n');
    const files = new Map(
      Object.entries({
        'plan/workflow.md': '---\nname: plan\ndescription: Write a plan.\n---\n\n# Plan\n\nRead fully and follow: `./steps/step-01-start.md`\n',
        'plan/steps/step-01-start.md': start,
        'plan/steps/step-01b-resume.md': '# Resume\n\n- If `lastStep = 1` → Load `./step-02-goals.md`\n',
        'plan/steps/step-02-goals.md': '# Goals\n',
      }),
    );
    const d = deriveBmadMethod(files);
    expect(d.workflows[0]!.graph.edges.map((e) => `${e.from} -> ${e.to} [${e.label}]${e.isDefault ? ' default' : ''}`)).toEqual([
      'step-01-start -> step-01b-resume [the plan file is there and lists stepsCompleted]',
      'step-01-start -> step-02-goals [next] default',
      'step-01b-resume -> step-02-goals [lastStep = 1]',
    ]);
    expect(validatePackage(d.pkg).errors).toEqual([]);
    expect(exportBmadMethod(d.pkg, d.origin).files).toEqual(new Map([...files].sort(([a], [b]) => a.localeCompare(b))));
  });

  it('takes a bold IF line without a colon, over a "Then:" caption', () => {
    expect(labels('# Pick\n\n**IF Revise Mode**\n\nThen:\n\n- load `./step-02-revise.md`\n')).toEqual({ './step-02-revise.md': 'Revise Mode' });
  });

  it('takes a menu choice named by the condition, over a bold caption', () => {
    expect(labels('# Menu\n\n[R] Review the draft\n\nIF R:\n**Review Procedure**\n- load `./step-03-review.md`\n')).toEqual({ './step-03-review.md': '[R] Review the draft' });
  });
});

describe('text near a link that is not its condition', () => {
  it('a heading between the condition and the link ends the search', () => {
    expect(labels('If the plan exists:\n\n### 2. Resume (If a Plan Exists)\n\n- load `./step-01b-resume.md`\n')).toEqual({ './step-01b-resume.md': 'next' });
  });

  it('a heading is never passed over as a caption', () => {
    expect(labels('If the plan exists:\n\n#### Procedure:\n\n- load `./step-01b-resume.md`\n')).toEqual({ './step-01b-resume.md': 'next' });
  });

  it('a sentence between them ends the search: the condition belongs to that paragraph', () => {
    const text = 'If the person asks for an outline:\n\nWrite the outline in three levels and show it before saving anything.\n\n- load `./step-04-save.md`\n';
    expect(labels(text)).toEqual({ './step-04-save.md': 'next' });
  });

  it('only one caption is passed over', () => {
    expect(labels('If the plan exists:\n\n**Resume:**\n\n**Procedure:**\n\n- load `./step-01b-resume.md`\n')).toEqual({ './step-01b-resume.md': 'next' });
  });

  it('a long bold line is a sentence, not a caption', () => {
    const text = 'If the plan exists:\n\n**Read every section of the plan and note what is still missing before going on:**\n\n- load `./step-01b-resume.md`\n';
    expect(labels(text)).toEqual({ './step-01b-resume.md': 'next' });
  });

  it('a caption under a heading, with no condition above, gives no label', () => {
    expect(labels('### 4. Continue\n\n**Next:**\n\n- load `./step-05-end.md`\n')).toEqual({ './step-05-end.md': 'next' });
  });
});
