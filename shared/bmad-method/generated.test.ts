import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../bmad/frontmatter.ts';
import { addGeneratedFields, stripGeneratedFields } from './generated.ts';

const fields = { schemaVersion: '1.1', nodeId: 'step-01', type: 'step', stepsCompleted: [] as string[] };

describe('generated .bmad fields', () => {
  it.each([
    ['LF frontmatter with comments', "---\nname: 'step-01'\n\n# File References\nnextStepFile: './step-02.md'\n---\n\n# Step 1\n"],
    ['CRLF frontmatter', "---\r\nname: 'step-01'\r\n---\r\n# Step 1\r\n"],
    ['no frontmatter at all', '# Step 1\n\nJust text.\n'],
    ['a body that mentions the marker', "---\nname: x\n---\n# crewagent:end\n"],
  ])('%s: added fields parse, and stripping gives the original bytes back', (_name, original) => {
    const withFields = addGeneratedFields(original, fields);
    const parsed = parseFrontmatter(withFields);
    expect(parsed.ok && parsed.value.data).toMatchObject(fields);
    expect(stripGeneratedFields(withFields)).toEqual({ ok: true, text: original });
  });

  it('keeps an edited generated block strippable, and says so when the markers are gone', () => {
    const withFields = addGeneratedFields("---\nname: x\n---\nbody\n", fields).replace('type: "step"', 'type: "decision"');
    expect(stripGeneratedFields(withFields)).toEqual({ ok: true, text: '---\nname: x\n---\nbody\n' });
    expect(stripGeneratedFields('---\nschemaVersion: "1.1"\n---\nbody\n')).toEqual({ ok: false, text: '---\nschemaVersion: "1.1"\n---\nbody\n' });
  });
});
