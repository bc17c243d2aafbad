/** The domain persona: project profile first, then the package's own signals, then a safe default. */
import { describe, expect, it } from 'vitest';
import type { BmadPackage } from '../../../shared/bmad/index.ts';
import { EC, EMPTY_PROFILE, supportDesk, loadPackage } from './support-desk.fixture.ts';
import { DEFAULT_PERSONA, buildPersonaLayer, resolveDomainPersona } from './persona.ts';

const EMPTY_PACKAGE: BmadPackage = { manifestJson: null, agentsJson: null, workflows: [], assets: [] };
const branching = loadPackage('branching');

describe('resolveDomainPersona', () => {
  it('uses the project domain profile when it is filled', () => {
    const profile = {
      industryDomain: 'Retail banking',
      targetUsers: 'Branch staff',
      painPoints: 'Slow account opening',
      expectedOutcomes: 'Accounts opened in one visit',
      qualityStyle: 'Formal',
    };
    const { persona, summary } = resolveDomainPersona({ domainProfile: profile, pkg: supportDesk, workflowId: EC });
    expect(persona).toEqual({
      industry_domain: 'Retail banking',
      target_users: 'Branch staff',
      core_pain_points: 'Slow account opening',
      expected_outcomes: 'Accounts opened in one visit',
      quality_style: 'Formal',
    });
    expect(summary).toEqual({
      source: 'project',
      confidence: 1,
      industryDomain: 'Retail banking',
      filledFields: ['industry_domain', 'target_users', 'core_pain_points', 'expected_outcomes', 'quality_style'],
    });
  });

  it('lets project fields win field by field, and fills the rest from the workflow', () => {
    const profile = { ...EMPTY_PROFILE, industryDomain: 'Corporate travel', targetUsers: 'Travel desk' };
    const { persona, summary } = resolveDomainPersona({ domainProfile: profile, pkg: supportDesk, workflowId: EC });
    expect(persona.industry_domain).toBe('Corporate travel');
    expect(persona.target_users).toBe('Travel desk');
    expect(persona.expected_outcomes).toBe('Sort one incoming support ticket by severity, then either resolve it or escalate it as the support policy says.');
    expect(summary.source).toBe('project');
    // 2 fields × 1.0 + 3 fields × 0.5, over 5.
    expect(summary.confidence).toBe(0.7);
  });

  it('infers a customer support / policy compliance domain from the triage workflow when the profile is empty', () => {
    const { persona, summary } = resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: EC });
    expect(summary.source).toBe('workflow_signals');
    expect(persona.industry_domain).toMatch(/customer support/u);
    expect(persona.industry_domain).toMatch(/compliance/u);
    expect(persona.industry_domain).toContain('Support ticket triage');
    expect(summary.industryDomain).toBe(persona.industry_domain);
    expect(summary.confidence).toBeGreaterThan(0.2);
    expect(summary.confidence).toBeLessThanOrEqual(0.5);
  });

  it('gives the branching package and an empty package other personas than support-desk', () => {
    const support = resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: EC }).persona;
    const course = resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: branching, workflowId: 'main' }).persona;
    const empty = resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: EMPTY_PACKAGE, workflowId: null }).persona;
    expect(course.industry_domain).toMatch(/education/u);
    expect(course.industry_domain).not.toMatch(/customer support/u);
    expect(course).not.toEqual(support);
    expect(empty).not.toEqual(support);
    expect(empty).toEqual(DEFAULT_PERSONA);
  });

  it('reads the whole package when the session names no workflow (agent and asset sessions)', () => {
    const { persona, summary } = resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: null });
    expect(summary.source).toBe('workflow_signals');
    expect(persona.industry_domain).toMatch(/customer support/u);
  });

  it('falls back to a safe, non-industry default with low confidence when nothing is known', () => {
    for (const pkg of [null, EMPTY_PACKAGE]) {
      const { persona, summary } = resolveDomainPersona({ domainProfile: null, pkg, workflowId: null });
      expect(persona).toEqual(DEFAULT_PERSONA);
      expect(summary.source).toBe('default');
      expect(summary.confidence).toBeLessThanOrEqual(0.2);
      expect(summary.filledFields).toEqual([]);
    }
  });

  it("names the session's own workflow in the inferred domain", () => {
    const { persona } = resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: 'weekly-report' });
    expect(persona.industry_domain).toContain('Weekly support report');
  });
});

describe('buildPersonaLayer', () => {
  it('casts the model as an industry application architect, never a generic builder assistant', () => {
    const cases = [
      resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: EC }),
      resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: branching, workflowId: 'main' }),
      resolveDomainPersona({ domainProfile: null, pkg: null, workflowId: null }),
    ];
    for (const { persona, summary } of cases) {
      const text = buildPersonaLayer(persona, summary);
      expect(text).toMatch(/^You are an industry application architect for /u);
      expect(text).toContain(`Primary users: ${persona.target_users}`);
      expect(text.toLowerCase()).not.toContain('builder assistant');
    }
  });

  it('ends every field with exactly one full stop and says when the domain is unknown', () => {
    const text = buildPersonaLayer({ ...DEFAULT_PERSONA, target_users: 'Auditors.' }, { source: 'default' });
    expect(text).toContain('Primary users: Auditors.\n');
    expect(text).not.toContain('..');
    expect(text).toContain('No domain is known for this project yet');
  });
});
