/**
 * Test support for the prompt tests: sessions and context envelopes over the repository's
 * `two-workflows` test package (`support-desk`), built through the real effective view and envelope
 * builder, as read-tools.test.ts does. Node only (it reads the package from disk).
 */
import { loadFixture } from '../../../test/fixtures/packages.ts';
import type { FixtureName } from '../../../test/fixtures/packages.ts';
import { packageFromFiles, toMultiWorkflowLayout } from '../../../shared/bmad/index.ts';
import type { BmadPackage } from '../../../shared/bmad/index.ts';
import type { Baseline } from '../../../shared/ai/overlay.ts';
import type { SessionMeta, SessionMode, TargetType } from '../../../shared/ai/session.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import { MODEL_TOOL_NAMES, READ_TOOL_NAMES } from '../../../shared/ai/tool-names.ts';
import { createEffectiveView } from '../overlay/effective-view.ts';
import { buildContextEnvelope } from '../tools/context-envelope.ts';
import type { ContextEnvelope } from '../tools/context-envelope.ts';

export const EC = 'ticket-triage';
export const POLICY_PATH = 'assets/policies/support-policy.md';

export const loadPackage = (name: FixtureName): BmadPackage => toMultiWorkflowLayout(packageFromFiles(loadFixture(name)));

export const supportDesk = loadPackage('two-workflows');
export const POLICY = supportDesk.assets.find((a) => a.path === POLICY_PATH)!.content;

export const EMPTY_PROFILE: DomainProfile = { industryDomain: '', targetUsers: '', painPoints: '', expectedOutcomes: '', qualityStyle: '' };

const baseline: Baseline = {
  projectId: 'p1',
  pkg: supportDesk,
  revisions: { workflows: { [EC]: 12, 'weekly-report': 3 }, agents: 4, assets: 7 },
};

/** The target each target type works on in support-desk. */
const TARGETS: Readonly<Record<TargetType, { workflowId: string | null; targetId: string }>> = {
  workflow: { workflowId: EC, targetId: EC },
  step: { workflowId: EC, targetId: 'classify-issue' },
  agent: { workflowId: null, targetId: 'triager' },
  asset: { workflowId: null, targetId: POLICY_PATH },
};

export function session(targetType: TargetType, mode: SessionMode, overrides: Partial<SessionMeta> = {}): SessionMeta {
  return {
    sessionId: 's1',
    projectId: 'p1',
    ...TARGETS[targetType],
    targetType,
    mode,
    createdBy: 'u1',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function envelopeFor(meta: SessionMeta, domainProfile: DomainProfile = EMPTY_PROFILE): ContextEnvelope {
  return buildContextEnvelope({ view: createEffectiveView(baseline, []), session: meta, domainProfile });
}

export const ALL_TOOLS: readonly string[] = [...MODEL_TOOL_NAMES];
export const READ_TOOLS_ONLY: readonly string[] = [...READ_TOOL_NAMES];
