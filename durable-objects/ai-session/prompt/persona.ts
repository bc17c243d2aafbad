/**
 * The domain persona resolver: who the model is for this
 * project, as an industry application architect, and where that came from. Priority, field by
 * field: the project's domain profile, then signals read from the package (workflow names and
 * titles, variables, step titles, asset file names, agent titles), then a safe default that names
 * no industry. Never a generic "builder assistant" identity. Pure and deterministic; the prompt
 * composer's layer 0B and the context summary use it.
 */
import type { BmadPackage, BmadWorkflow } from '../../../shared/bmad/index.ts';
import type { PersonaSource, PersonaSummary } from '../../../shared/ai/turn.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import { markdownSections } from '../../../shared/bmad/markdown-sections.ts';
import { agentsOf, findWorkflow, isJsonObject, parseJsonLoose, readGraph, stepsOf } from '../overlay/package-lookups.ts';
import { agentIdsOfStep, assetPathsOfStep } from '../tools/refs.ts';
import { matchHints } from './domain-hints.ts';
import { parseFrontmatterOnce } from '../tools/frontmatter-memo.ts';

/** The five persona fields, named as the original product's prompt names them. */
export interface DomainPersona {
  industry_domain: string;
  target_users: string;
  core_pain_points: string;
  expected_outcomes: string;
  quality_style: string;
}
export type PersonaField = keyof DomainPersona;

export interface ResolvedPersona {
  persona: DomainPersona;
  summary: PersonaSummary;
}

export interface PersonaInput {
  /** The project's domain profile ('' when a field is unset); null when there is none. */
  domainProfile: DomainProfile | Record<string, unknown> | null | undefined;
  /** The session's effective package; null when it is not loaded. */
  pkg: BmadPackage | null | undefined;
  /** The session's workflow; null for agent and asset sessions (then the whole package speaks). */
  workflowId: string | null | undefined;
}

const PERSONA_FIELDS = ['industry_domain', 'target_users', 'core_pain_points', 'expected_outcomes', 'quality_style'] as const;

const PROFILE_KEYS: Readonly<Record<PersonaField, keyof DomainProfile>> = {
  industry_domain: 'industryDomain',
  target_users: 'targetUsers',
  core_pain_points: 'painPoints',
  expected_outcomes: 'expectedOutcomes',
  quality_style: 'qualityStyle',
};

/** Safe defaults: they name no industry and invent nothing (safe defaults that belong to no industry). */
export const DEFAULT_PERSONA: Readonly<DomainPersona> = {
  industry_domain: "workflow design for the package's own subject",
  target_users: "the people who will run this package's workflows",
  core_pain_points: 'unclear steps, missing inputs and broken references between steps, agents and assets',
  expected_outcomes: 'a valid, executable .bmad package that does what the user asks',
  quality_style: "clear, concise and consistent with the package's existing conventions",
};

/** How much a field counts toward confidence, by where it came from. */
const WEIGHT: Readonly<Record<'project' | 'signals' | 'default', number>> = { project: 1, signals: 0.5, default: 0 };

/** At most this many domain phrases make up a derived industry domain. */
const MAX_DOMAIN_PHRASES = 2;
/** Signal lists (agent titles) are cut to this many entries. */
const MAX_LISTED = 4;
const MAX_PHRASE_CHARS = 200;

const clean = (text: string): string => text.replace(/\s+/gu, ' ').trim();
const cut = (text: string, max = MAX_PHRASE_CHARS): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const fileStem = (path: string): string => (path.split('/').pop() ?? path).replace(/\.[^.]*$/u, '');

function profileText(profile: PersonaInput['domainProfile'], field: PersonaField): string {
  const value = profile?.[PROFILE_KEYS[field]];
  return typeof value === 'string' ? cut(clean(value), 2000) : '';
}

/** What the package says about its subject, as plain texts. */
interface Signals {
  /** The workflow's (or the package's) title, when there is one. */
  title: string | undefined;
  /** The workflow's goal, from workflow.md's "## Goal" section. */
  goal: string | undefined;
  agentTitles: string[];
  /** All the words the keyword table looks at. */
  texts: string[];
}

function workflowTitle(workflow: BmadWorkflow): string | undefined {
  if (workflow.displayName) return clean(workflow.displayName);
  const parsed = workflow.workflowMd === null ? undefined : parseFrontmatterOnce(workflow.workflowMd);
  const body = parsed?.ok ? parsed.value.body : (workflow.workflowMd ?? '');
  const heading = markdownSections(body).find((s) => s.level === 1)?.title;
  return heading ? clean(heading) : undefined;
}

function workflowGoal(workflow: BmadWorkflow): string | undefined {
  if (workflow.workflowMd === null) return undefined;
  const goal = markdownSections(workflow.workflowMd).find((s) => /^goal$/iu.test(s.title))?.content;
  const paragraph = goal?.split(/\n\s*\n/u).map(clean).find((p) => p.length > 0);
  return paragraph ? cut(paragraph) : undefined;
}

function workflowTexts(workflow: BmadWorkflow): { texts: string[]; agentIds: string[]; assetPaths: string[] } {
  const graph = readGraph(workflow.graphJson);
  const steps = stepsOf(workflow, graph);
  const parsed = workflow.workflowMd === null ? undefined : parseFrontmatterOnce(workflow.workflowMd);
  const data = parsed?.ok ? parsed.value.data : {};
  const texts = [
    workflow.id,
    workflow.displayName ?? '',
    workflow.description ?? '',
    ...(workflow.tags ?? []),
    workflowTitle(workflow) ?? '',
    typeof data.workflowType === 'string' ? data.workflowType : '',
    ...(isJsonObject(data.variables) ? Object.keys(data.variables) : []),
    ...steps.map((s) => s.node?.title ?? ''),
    ...steps.map((s) => s.nodeId),
  ];
  return {
    texts,
    agentIds: steps.flatMap(agentIdsOfStep),
    assetPaths: steps.flatMap((s) => (s.file ? assetPathsOfStep(s.file.markdown) : [])),
  };
}

function manifestTexts(pkg: BmadPackage): { name: string | undefined; texts: string[] } {
  const manifest = parseJsonLoose(pkg.manifestJson);
  if (!isJsonObject(manifest)) return { name: undefined, texts: [] };
  const name = typeof manifest.name === 'string' ? manifest.name : undefined;
  const description = typeof manifest.description === 'string' ? manifest.description : '';
  return { name, texts: [name ?? '', description] };
}

function collectSignals(pkg: BmadPackage, workflowId: string | null | undefined): Signals {
  const chosen = workflowId ? findWorkflow(pkg, workflowId) : undefined;
  const workflows = chosen ? [chosen] : pkg.workflows;
  const perWorkflow = workflows.map(workflowTexts);
  const usedAgents = new Set(perWorkflow.flatMap((w) => w.agentIds));
  // A workflow speaks through its own agents and assets; without one, the whole package does.
  const agents = agentsOf(pkg).filter((a) => !chosen || (typeof a.id === 'string' && usedAgents.has(a.id)));
  const assetPaths = chosen ? [...new Set(perWorkflow.flatMap((w) => w.assetPaths))] : pkg.assets.map((a) => a.path);
  const agentTitles = agents.flatMap((a) => {
    const title = isJsonObject(a.metadata) && typeof a.metadata.title === 'string' ? clean(a.metadata.title) : '';
    return title ? [title] : [];
  });
  const agentRoles = agents.map((a) => (isJsonObject(a.persona) && typeof a.persona.role === 'string' ? a.persona.role : ''));
  const manifest = manifestTexts(pkg);
  const firstWorkflow = workflows[0];
  const title = chosen ? workflowTitle(chosen) : (manifest.name ?? (firstWorkflow ? workflowTitle(firstWorkflow) : undefined));
  const goal = firstWorkflow && (chosen || workflows.length === 1) ? workflowGoal(firstWorkflow) : undefined;
  return {
    title,
    goal,
    agentTitles: [...new Set(agentTitles)],
    texts: [...perWorkflow.flatMap((w) => w.texts), ...manifest.texts, ...agentTitles, ...agentRoles, ...assetPaths.map(fileStem)],
  };
}

/** Persona fields derived from package signals; a field is absent when the signals say nothing about it. */
function personaFromSignals(signals: Signals): Partial<DomainPersona> {
  const hints = matchHints(signals.texts);
  const best = hints[0];
  const title = signals.title ? cut(signals.title, 80) : undefined;
  const phrases = hints.slice(0, MAX_DOMAIN_PHRASES).map((h) => h.domain);
  const out: Partial<DomainPersona> = {};
  if (phrases.length > 0) out.industry_domain = title ? `${phrases.join(', ')} (${title})` : phrases.join(', ');
  else if (title) out.industry_domain = `the subject of "${title}"`;
  const roles = signals.agentTitles.slice(0, MAX_LISTED);
  if (best) out.target_users = best.users;
  else if (roles.length > 0) out.target_users = `people in the roles this package models: ${roles.join(', ')}`;
  if (best) out.core_pain_points = best.painPoints;
  if (signals.goal) out.expected_outcomes = signals.goal;
  if (best) out.quality_style = best.quality;
  return out;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** The persona for a session: project fields win field by field, package signals fill the rest, then defaults. */
export function resolveDomainPersona(input: PersonaInput): ResolvedPersona {
  const fromSignals = input.pkg ? personaFromSignals(collectSignals(input.pkg, input.workflowId)) : {};
  const persona = { ...DEFAULT_PERSONA };
  const origin: Record<PersonaField, 'project' | 'signals' | 'default'> = {
    industry_domain: 'default',
    target_users: 'default',
    core_pain_points: 'default',
    expected_outcomes: 'default',
    quality_style: 'default',
  };
  for (const field of PERSONA_FIELDS) {
    const project = profileText(input.domainProfile, field);
    const signal = fromSignals[field];
    if (project) {
      persona[field] = project;
      origin[field] = 'project';
    } else if (signal) {
      persona[field] = signal;
      origin[field] = 'signals';
    }
  }
  const origins = PERSONA_FIELDS.map((f) => origin[f]);
  const source: PersonaSource = origins.includes('project') ? 'project' : origins.includes('signals') ? 'workflow_signals' : 'default';
  const confidence = round2(origins.reduce((sum, o) => sum + WEIGHT[o], 0) / PERSONA_FIELDS.length);
  return {
    persona,
    summary: {
      source,
      confidence,
      industryDomain: persona.industry_domain,
      filledFields: PERSONA_FIELDS.filter((f) => origin[f] !== 'default'),
    },
  };
}

const SOURCE_NOTES: Readonly<Record<PersonaSource, string>> = {
  project: "This persona comes from the project's domain profile.",
  workflow_signals:
    "This persona was inferred from the package's own names and titles, not set by the user: if the domain matters for an answer and you are unsure, ask the user one short question.",
  default:
    'No domain is known for this project yet: stay domain-neutral, and when the domain matters ask the user one short question about the industry, the users and the expected outcome.',
};

/** `Label: text.` with exactly one closing punctuation mark, whatever the text ends with. */
const sentence = (label: string, text: string): string => `${label}: ${text.replace(/[\s.]+$/u, '')}${/[!?]$/u.test(text.trim()) ? '' : '.'}`;

/** Layer 0B: the domain persona as prompt text. */
export function buildPersonaLayer(persona: DomainPersona, summary?: Pick<PersonaSummary, 'source'>): string {
  return [
    `You are an industry application architect for ${persona.industry_domain.replace(/[\s.]+$/u, '')}.`,
    sentence('Primary users', persona.target_users),
    sentence('Their core pain points', persona.core_pain_points),
    sentence('Expected outcomes', persona.expected_outcomes),
    sentence('Quality style', persona.quality_style),
    'Your goal is to convert domain intent into executable, BMAD-compliant workflow assets (workflows, steps, agents and assets) that these users can run.',
    "Use the domain's vocabulary in step instructions and agent personas, but never invent facts, figures, policies or regulations that neither the user nor the package gave you: ask, or mark them as placeholders to confirm.",
    ...(summary ? [SOURCE_NOTES[summary.source]] : []),
  ].join('\n');
}
