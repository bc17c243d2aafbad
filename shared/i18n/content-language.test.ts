import { describe, expect, it } from 'vitest';
import { loadFixture, loadPackageDir, PACKAGES_DIR } from '../../test/fixtures/packages.ts';
import { packageFromFiles, packageToFiles, validatePackage } from '../bmad/index.ts';
import { detectContentLanguage, languageSettings, localeOfLanguageName, mostlyHan, parseContentLanguage } from './content-language.ts';

const zhReview = () => loadPackageDir(new URL('zh-review/', PACKAGES_DIR));

describe('the content language of a package', () => {
  it('reads the Chinese example package as Chinese and the English test packages as English', () => {
    expect(detectContentLanguage(packageFromFiles(zhReview()))).toBe('zh');
    expect(detectContentLanguage(packageFromFiles(loadFixture('two-workflows')))).toBe('en');
    expect(detectContentLanguage(packageFromFiles(loadFixture('branching')))).toBe('en');
  });

  it('counts the share of Han characters in the prose, not in English ids and keys', () => {
    const files = zhReview();
    files.delete('assets/data/config.yaml'); // no BMAD setting: the text alone decides
    expect(detectContentLanguage(packageFromFiles(files))).toBe('zh');
    expect(mostlyHan(['collect-requirements', 'review-requirements', '收集需求'])).toBe(true);
    expect(mostlyHan(['Ask the requester for the legal name of the vendor.', '供应商'])).toBe(false);
    expect(mostlyHan([])).toBe(false);
  });

  it('finds Han characters wherever the shortcut for English packages could miss them', () => {
    // An English package whose graph labels are Chinese, once written plainly and once as \u escapes.
    const files = loadFixture('branching');
    const graphPath = [...files.keys()].find((p) => p.endsWith('workflow.graph.json'))!;
    const graph = JSON.parse(files.get(graphPath)!) as { nodes: Array<{ title?: string; label?: string }> };
    const chinese = '这是一个很长的中文标题，用来说明这个步骤要做的全部事情和需要注意的细节'.repeat(40);
    for (const node of graph.nodes) node.title = chinese;
    files.set(graphPath, JSON.stringify(graph));
    expect(detectContentLanguage(packageFromFiles(files))).toBe('zh');
    files.set(graphPath, JSON.stringify(graph).replace(/[^\x00-\x7f]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    expect(files.get(graphPath)).not.toMatch(/[^\x00-\x7f]/u);
    expect(detectContentLanguage(packageFromFiles(files))).toBe('zh');
    // Non-ASCII that is not Han (a dash, an accent) leaves an English package English.
    files.set(graphPath, JSON.stringify({ ...graph, nodes: graph.nodes.map((n) => ({ ...n, title: 'Café — résumé' })) }));
    expect(detectContentLanguage(packageFromFiles(files))).toBe('en');
  });

  it('lets BMAD document_output_language win over communication_language and over the text', () => {
    const files = zhReview();
    files.set('assets/data/config.yaml', 'communication_language: Chinese\ndocument_output_language: English\n');
    expect(detectContentLanguage(packageFromFiles(files))).toBe('en');
    files.set('assets/data/config.yaml', 'communication_language: English\n');
    expect(detectContentLanguage(packageFromFiles(files))).toBe('en');
    const english = loadFixture('two-workflows');
    english.set('assets/data/settings.yaml', 'document_output_language: "zh-CN"\n');
    expect(detectContentLanguage(packageFromFiles(english))).toBe('zh');
  });

  it('ignores placeholders and languages the product does not speak', () => {
    expect(languageSettings(['communication_language: {communication_language}', 'document_output_language: French'])).toEqual({});
    expect(localeOfLanguageName('简体中文')).toBe('zh');
    expect(localeOfLanguageName("'Mandarin Chinese'")).toBe('zh');
    expect(localeOfLanguageName('en-GB')).toBe('en');
    expect(parseContentLanguage('fr')).toBe('en');
    expect(parseContentLanguage('zh')).toBe('zh');
  });
});

describe('the Chinese example package (test/fixtures/packages/zh-review)', () => {
  it('validates without errors or warnings', () => {
    const report = validatePackage(packageFromFiles(zhReview()));
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('keeps its Chinese names, personas and graph labels, and writes back byte for byte', () => {
    const original = zhReview();
    const pkg = packageFromFiles(original);
    expect(pkg.workflows[0]!.displayName).toBe('需求评审');
    const graph = JSON.parse(pkg.workflows[0]!.graphJson!) as { edges: Array<{ label: string }> };
    expect(graph.edges.map((e) => e.label)).toContain('需修改');
    expect(pkg.agentsJson).toContain('"name": "林晓"');
    expect(new Map([...packageToFiles(pkg)].sort())).toEqual(new Map([...original].sort()));
  });

  it('answers text by text exactly what one regex pass over the joined prose answered', () => {
    // The definition before it stopped joining the texts, listing every word and counting them all.
    const joined = (texts: string[]) => {
      const prose = texts.filter((t) => /\s/u.test(t.trim()) || /[^\x00-\x7f]/u.test(t)).join('\n');
      const han = prose.match(/\p{Script=Han}/gu)?.length ?? 0;
      const words = prose.match(/[A-Za-z]{2,}/gu)?.length ?? 0;
      return han + words === 0 ? 0 : han / (han + words);
    };
    const alphabet = ['a', 'Z', 'q', ' ', '\n', '\t', '中', '文', '1', '-', '@', '[', '`', '{', 'é', 'ж'];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 1_000_003;
    for (let round = 0; round < 300; round++) {
      const texts = Array.from({ length: 1 + (next() % 4) }, () => Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join(''));
      expect(mostlyHan(texts), JSON.stringify(texts)).toBe(joined(texts) >= 0.5);
    }
    expect(mostlyHan(['ab 中文', '中'])).toBe(true);
    expect(mostlyHan(['ab cd 中'])).toBe(false);
    expect(mostlyHan(['ab cd 中', '中'])).toBe(true);
    // Words that end one text and start the next stay two words (as one, the single Han would be half).
    expect(mostlyHan(['x ab', 'cd 中'])).toBe(false);
  });
});

