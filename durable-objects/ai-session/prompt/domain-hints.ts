/**
 * The keyword table behind a persona inferred from package signals (persona.ts): words found in a
 * package's names and titles → a domain phrase and that domain's typical users, pain points and
 * quality style. Small and fixed on purpose, so the inference is deterministic and reviewable.
 */

export interface DomainHint {
  keywords: readonly string[];
  domain: string;
  users: string;
  painPoints: string;
  quality: string;
}

/**
 * A small, fixed keyword table: words found in the package → a domain phrase and typical users,
 * pain points and quality style. Order breaks ties, so the result is deterministic.
 */
export const DOMAIN_HINTS: readonly DomainHint[] = [
  {
    keywords: ['expense', 'expenses', 'finance', 'financial', 'invoice', 'invoices', 'ledger', 'budget', 'variance', 'accounting', 'reimbursement', 'receipt', 'receipts', 'payment', 'payments', 'tax'],
    domain: 'finance and accounting',
    users: 'finance teams: accountants, auditors, analysts and controllers',
    painPoints: 'manual line-by-line checks, missing evidence, inconsistent decisions and slow sign-off',
    quality: 'precise and auditable: every decision traceable to a rule, a figure or a document',
  },
  {
    keywords: ['compliance', 'policy', 'policies', 'audit', 'auditor', 'regulation', 'regulatory', 'violation', 'violations', 'risk', 'controls'],
    domain: 'policy compliance and audit',
    users: 'compliance officers, auditors and the reviewers who sign off',
    painPoints: 'rules applied inconsistently, findings without evidence and exceptions that slip through',
    quality: 'strict and evidence-based: cite the rule behind every finding, escalate instead of guessing',
  },
  {
    keywords: ['software', 'code', 'api', 'deploy', 'architect', 'architecture', 'greenfield', 'brownfield', 'developer', 'engineering', 'repository', 'release', 'bug'],
    domain: 'software project planning and delivery',
    users: 'product managers, analysts, architects and developers',
    painPoints: 'vague requests, unstated assumptions and plans that skip risks',
    quality: 'structured and explicit: numbered steps, named trade-offs and testable outcomes',
  },
  {
    keywords: ['hiring', 'candidate', 'candidates', 'recruit', 'recruiting', 'onboarding', 'employee', 'employees', 'interview', 'payroll'],
    domain: 'human resources and people operations',
    users: 'HR partners, recruiters and hiring managers',
    painPoints: 'inconsistent evaluations, lost paperwork and slow hand-offs',
    quality: 'fair and consistent: the same criteria for everyone, personal data kept to a minimum',
  },
  {
    keywords: ['ticket', 'tickets', 'support', 'customer', 'customers', 'complaint', 'complaints', 'refund', 'helpdesk', 'escalation'],
    domain: 'customer support and service',
    users: 'support agents, team leads and customer success managers',
    painPoints: 'slow responses, repeated questions and unclear escalation paths',
    quality: 'friendly and clear: short answers, explicit next steps and escalation rules',
  },
  {
    keywords: ['patient', 'patients', 'clinical', 'diagnosis', 'medical', 'health', 'healthcare', 'nurse', 'treatment'],
    domain: 'healthcare and clinical operations',
    users: 'clinicians, nurses and care coordinators',
    painPoints: 'incomplete records, missed follow-ups and hand-off errors',
    quality: 'cautious and exact: never invent clinical facts, always defer to a qualified person',
  },
  {
    keywords: ['contract', 'contracts', 'legal', 'clause', 'clauses', 'litigation', 'nda', 'counsel'],
    domain: 'legal and contract work',
    users: 'lawyers, paralegals and contract managers',
    painPoints: 'missed clauses, inconsistent wording and untracked obligations',
    quality: 'exact and conservative: quote the clause, flag anything ambiguous',
  },
  {
    keywords: ['campaign', 'campaigns', 'marketing', 'sales', 'lead', 'leads', 'prospect', 'prospects', 'crm', 'pipeline'],
    domain: 'sales and marketing',
    users: 'marketers, sales representatives and their managers',
    painPoints: 'unqualified leads, inconsistent messaging and lost follow-ups',
    quality: 'persuasive but factual: clear audience, clear call to action, measurable results',
  },
  {
    keywords: ['course', 'courses', 'student', 'students', 'lesson', 'lessons', 'teacher', 'curriculum', 'training', 'quiz'],
    domain: 'education and training',
    users: 'teachers, trainers and learners',
    painPoints: 'unclear learning goals, uneven material and little feedback',
    quality: 'clear and encouraging: one concept at a time, with examples and checks',
  },
  {
    keywords: ['inventory', 'supplier', 'suppliers', 'procurement', 'warehouse', 'shipment', 'shipments', 'logistics', 'purchase', 'order', 'orders'],
    domain: 'supply chain and operations',
    users: 'buyers, planners and operations managers',
    painPoints: 'stock-outs, late shipments and manual reconciliation',
    quality: 'operational and exact: quantities, dates and owners for every action',
  },
];

/** Keyword hits a domain other than the best one needs to be named too. */
const MIN_SECONDARY_SCORE = 2;

const words = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);

/** The keyword table's entries that the signals hit, best first (ties: table order). */
export function matchHints(texts: readonly string[]): DomainHint[] {
  const counts = new Map<string, number>();
  for (const word of texts.flatMap(words)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const ranked = DOMAIN_HINTS.map((hint, index) => ({ hint, index, score: hint.keywords.reduce((sum, k) => sum + (counts.get(k) ?? 0), 0) }))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  // A single stray word (one "policy" in a package description) does not make a second domain.
  return ranked.filter((m, i) => i === 0 || m.score >= MIN_SECONDARY_SCORE).map((m) => m.hint);
}
