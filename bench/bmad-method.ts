/**
 * A deterministic BMAD-METHOD folder for the bench: one workflow of `steps` step files chained by
 * `nextStepFile` and `[C] Continue` menus, every tenth step a two-way menu whose branches join at
 * the next step, bodies padded to about 1 KiB, plus a template and a .csv data file.
 */
export function generateBmadMethodFolder(steps: number): Map<string, string> {
  const dir = 'bench-flow/';
  const files = new Map<string, string>();
  const name = (i: number) => `step-${String(i).padStart(3, '0')}-work`;
  files.set(`${dir}workflow.md`, `---\nname: bench-flow\ndescription: A generated ${steps}-step workflow.\n---\n\n# Bench flow\n\nRead fully and follow: \`./steps/${name(1)}.md\`\n`);
  const pad = 'Work through the item with the user, write down what was agreed and why. '.repeat(12);
  for (let i = 1; i <= steps; i++) {
    const last = i === steps;
    const branch = !last && i % 10 === 0 && i + 2 <= steps;
    const next = branch ? i + 2 : i + 1;
    const lines = [
      '---',
      `name: '${name(i)}'`,
      ...(last ? [] : [`nextStepFile: './${name(next)}.md'`]),
      "outputFile: '{output_folder}/bench.md'",
      '---',
      '',
      `# Step ${i}: Work`,
      '',
      '## STEP GOAL:',
      '',
      `Finish item ${i}.`,
      '',
      '## Sequence of Instructions',
      '',
      pad,
      '',
    ];
    if (branch) {
      lines.push('**[A] Deep dive** - one more look', '**[C] Continue** - go on', '', `- IF A: load \`./${name(i + 1)}.md\``, '- IF C: read fully and follow: {nextStepFile}');
    } else if (!last) {
      lines.push('Display: **Select an Option:** [C] Continue', '', '- IF C: read fully and follow: {nextStepFile}');
    }
    files.set(`${dir}steps/${name(i)}.md`, `${lines.join('\n')}\n`);
  }
  files.set(`${dir}template.md`, '# Bench output\n');
  files.set(`${dir}data/items.csv`, 'item,owner\none,ada\n');
  return files;
}
