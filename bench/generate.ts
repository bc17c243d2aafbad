/**
 * Deterministic generator of valid multi-workflow .bmad packages for the benchmark (bench/run.ts).
 * Shaped like the two-workflows test package (test/fixtures/packages/): bmad.json with workflows[], agents.json, one
 * graph per workflow with decision branches, a retry loop through a decision and an end node,
 * step files with frontmatter + `## Goal` / `## Instructions` / `## Completion`, and a few assets
 * that steps refer to. The same options always give the same bytes (seeded PRNG, no clock).
 */

export interface GenerateOptions {
  workflows: number;
  /** Nodes per workflow graph, the end node included; one step file per node. */
  stepsPerWorkflow: number;
  /** UTF-8 bytes of each step file's Markdown body (after the frontmatter); ASCII, so chars = bytes. */
  stepBodyBytes: number;
  /** Bytes of each of the four assets (default 4 KiB). Spec limits: 256 KiB each, 2 MiB together. */
  assetBytes?: number;
}

const AGENTS = [
  { id: 'auditor', name: 'Ada', title: 'Expense Auditor', icon: '🔎', role: 'Expense auditor' },
  { id: 'analyst', name: 'Lin', title: 'Financial Analyst', icon: '📈', role: 'Financial analyst' },
  { id: 'controller', name: 'Omar', title: 'Financial Controller', icon: '🏦', role: 'Financial controller' },
  { id: 'clerk', name: 'Ines', title: 'Accounts Clerk', icon: '🧾', role: 'Accounts clerk' },
] as const;

const POLICY = 'assets/policies/expense-policy.md';
const THRESHOLDS = 'assets/data/thresholds.yaml';
const TEMPLATE = 'assets/templates/finding.md';
const CODES = 'assets/data/cost-codes.json';

const WORDS = (
  'report line receipt policy clause amount currency total approve flag review ledger account month variance ' +
  'threshold budget vendor invoice travel meal hotel flight category owner evidence finding note summary record ' +
  'check compare explain escalate confirm request submit attach verify reconcile export archive table column ' +
  'value date period quarter region team manager controller auditor analyst clerk cost centre code rate tax ' +
  'refund advance limit exception reason comment status pending complete missing duplicate split merge'
).split(' ');

/** mulberry32: a tiny seeded PRNG, so every run writes the same text. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** `head` + numbered filler lines + `tail`, exactly `bytes` long (or just head + tail when they are longer). */
function padded(head: string, tail: string, bytes: number, random: () => number): string {
  const lines: string[] = [];
  let length = head.length + tail.length;
  for (let n = 1; length < bytes; n++) {
    const line = `${n}. ${sentence(random, 8 + Math.floor(random() * 10))}\n`;
    const room = bytes - length;
    // The last line is cut to fit; it still ends in a newline so the next heading stays a heading.
    lines.push(line.length <= room ? line : room >= 2 ? `${line.slice(0, room - 1)}\n` : ' '.repeat(room));
    length += Math.min(line.length, room);
  }
  return head + lines.join('') + tail;
}

type NodeType = 'step' | 'decision' | 'merge' | 'end';

interface Node {
  id: string;
  type: NodeType;
  title: string;
  agentId: string;
}

interface Edge {
  id: string;
  from: string;
  to: string;
  label: string;
  isDefault?: boolean;
  conditionText?: string;
  conditionExpr?: Record<string, unknown>;
}

/**
 * A chain of five-node blocks, then plain steps, then one end node. Two block shapes alternate:
 * a diamond (work → decide → flag | approve → merge) and a retry loop through the decision
 * (work → decide → retry → work, decide → approve → merge), both as in the two-workflows test package.
 */
function buildGraph(count: number): { nodes: Node[]; edges: Edge[] } {
  if (count < 2) throw new RangeError('stepsPerWorkflow must be at least 2 (a step and the end node).');
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const pad = (n: number) => String(n).padStart(4, '0');
  const edge = (from: string, to: string, label: string, extra: Partial<Edge> = {}) =>
    edges.push({ id: `e${edges.length}`, from, to, label, ...extra });
  let previous: string | undefined;
  const link = (id: string) => {
    if (previous !== undefined) edge(previous, id, 'next');
  };
  let block = 0;
  while (count - 1 - nodes.length >= 5) {
    const b = pad(++block);
    const agent = AGENTS[block % AGENTS.length]!.id;
    const retry = block % 2 === 0;
    const work: Node = { id: `work-${b}`, type: 'step', title: `Review batch ${block}`, agentId: agent };
    const decide: Node = { id: `decide-${b}`, type: 'decision', title: `Batch ${block} complete?`, agentId: agent };
    const branch: Node = retry
      ? { id: `retry-${b}`, type: 'step', title: `Request missing receipts ${block}`, agentId: agent }
      : { id: `flag-${b}`, type: 'step', title: `Flag violations ${block}`, agentId: agent };
    const approve: Node = { id: `approve-${b}`, type: 'step', title: `Approve batch ${block}`, agentId: 'controller' };
    const merge: Node = { id: `merge-${b}`, type: 'merge', title: `Merge batch ${block}`, agentId: 'controller' };
    nodes.push(work, decide, branch, approve, merge);
    link(work.id);
    edge(work.id, decide.id, 'next');
    edge(decide.id, branch.id, retry ? 'missing-receipts' : 'violations', {
      isDefault: false,
      conditionText: retry ? 'variables.missingReceipts > 0' : 'variables.violations > 0',
      conditionExpr: { '>': [{ var: retry ? 'missingReceipts' : 'violations' }, 0] },
    });
    edge(decide.id, approve.id, 'clean', { isDefault: true });
    if (retry) edge(branch.id, work.id, 'retry');
    else edge(branch.id, merge.id, 'next');
    edge(approve.id, merge.id, 'next');
    previous = merge.id;
  }
  for (let n = 1; nodes.length < count - 1; n++) {
    const step: Node = { id: `wrap-up-${pad(n)}`, type: 'step', title: `Wrap up ${n}`, agentId: 'analyst' };
    nodes.push(step);
    link(step.id);
    previous = step.id;
  }
  nodes.push({ id: 'end', type: 'end', title: 'Done', agentId: 'controller' });
  link('end');
  return { nodes, edges };
}

const quoted = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;

function stepFile(node: Node, out: Edge[], index: number, bodyBytes: number, random: () => number): string {
  const readsPolicy = node.type === 'step' && index % 3 === 0;
  const inputs = readsPolicy ? ['artifacts/report.md', POLICY] : index === 0 ? [] : ['artifacts/report.md'];
  const transitions = out.length === 0
    ? 'transitions: []\n'
    : `transitions:\n${out
        .map((e) => {
          const isDefault = e.isDefault ?? out.length === 1;
          return `  - to: "${e.to}"\n    label: "${e.label}"\n${isDefault ? '    isDefault: true\n' : ''}`;
        })
        .join('')}`;
  const frontmatter =
    '---\n' +
    'schemaVersion: "1.1"\n' +
    `nodeId: "${node.id}"\n` +
    `type: "${node.type}"\n` +
    `title: "${node.title}"\n` +
    `agentId: "${node.agentId}"\n` +
    `inputs: ${quoted(inputs)}\n` +
    `outputs: ${quoted(node.type === 'end' ? [] : [`artifacts/${node.id}.md`])}\n` +
    `setsVariables: ${quoted(node.type === 'step' && out.length === 1 ? ['missingReceipts'] : [])}\n` +
    transitions +
    '---\n';
  const head =
    `\n# ${node.title}\n\n## Goal\n\n${sentence(random, 12)}\n\n## Instructions\n\n` +
    (readsPolicy ? `Read \`@pkg/${POLICY}\` and use \`@pkg/${TEMPLATE}\` for each finding.\n\n` : '');
  const tail = `\n## Completion (Document-as-State)\n\n- Append \`${node.id}\` to \`stepsCompleted\`; set \`currentNodeId\` to the chosen transition's target; update \`updatedAt\`.\n`;
  return frontmatter + padded(head, tail, bodyBytes, random);
}

function workflowMd(id: string, title: string, entry: string, nodes: readonly Node[], random: () => number): string {
  return (
    '---\n' +
    'schemaVersion: "1.1"\n' +
    `workflowType: "${id}"\n` +
    `currentNodeId: "${entry}"\n` +
    'stepsCompleted: []\n' +
    'variables: {}\n' +
    'decisionLog: []\n' +
    'artifacts: []\n' +
    '---\n\n' +
    `# ${title}\n\n## Goal\n\n${sentence(random, 16)}\n\n## Steps Index\n\n` +
    nodes.map((n) => `- [${n.id}](steps/${n.id}.md)\n`).join('')
  );
}

function assets(bytes: number, random: () => number): Array<[string, string]> {
  const policy = padded('# Expense policy\n\n', '', bytes, random);
  const template = padded('# Finding\n\n- Line:\n- Clause:\n- Evidence:\n\n## Notes\n\n', '', bytes, random);
  let yaml = 'variance:\n  absolute: 5000\n  percent: 10\nlimits:\n';
  for (let n = 1; yaml.length + 40 < bytes; n++) yaml += `  code-${n}: ${Math.floor(random() * 100000)}\n`;
  const codes: string[] = [];
  let codesLength = 0;
  for (let n = 1; codesLength + 80 < bytes; n++) {
    const code = JSON.stringify({ code: `CC-${n}`, label: sentence(random, 3) });
    codes.push(code);
    codesLength += code.length + 1;
  }
  return [
    [POLICY, policy],
    [THRESHOLDS, yaml],
    [TEMPLATE, template],
    [CODES, `[${codes.join(',')}]\n`],
  ];
}

/** The files of one package, in the multi-workflow layout that export writes (paths from the zip root). */
export function generatePackage(options: GenerateOptions): Map<string, string> {
  const random = prng(0x62_6d_61_64); // "bmad"
  const workflowIds = Array.from({ length: options.workflows }, (_, i) => `review-${String(i + 1).padStart(2, '0')}`);
  const files = new Map<string, string>();
  const manifest = {
    schemaVersion: '1.1',
    name: 'bench-expense-ops',
    version: '1.0.0',
    description: `Generated for the benchmark: ${options.workflows} workflows of ${options.stepsPerWorkflow} steps.`,
    author: 'bench/generate.ts',
    createdAt: '2026-03-02T09:30:00Z',
    entry: {
      workflow: `workflows/${workflowIds[0]}/workflow.md`,
      graph: `workflows/${workflowIds[0]}/workflow.graph.json`,
      agents: 'agents.json',
      assetsDir: 'assets/',
    },
    workflows: workflowIds.map((id, i) => ({
      id,
      displayName: `Expense review ${i + 1}`,
      workflow: `workflows/${id}/workflow.md`,
      graph: `workflows/${id}/workflow.graph.json`,
      tags: ['finance', 'generated'],
    })),
  };
  files.set('bmad.json', `${JSON.stringify(manifest, null, 2)}\n`);
  const agents = {
    schemaVersion: '1.1',
    agents: AGENTS.map((a) => ({
      id: a.id,
      metadata: { name: a.name, title: a.title, icon: a.icon, module: 'finance' },
      persona: {
        role: a.role,
        identity: sentence(random, 14),
        communication_style: sentence(random, 6),
        principles: [sentence(random, 5), sentence(random, 5)],
      },
      critical_actions: [`Load ${POLICY} before reviewing any line`],
    })),
  };
  files.set('agents.json', `${JSON.stringify(agents, null, 2)}\n`);

  for (const [w, id] of workflowIds.entries()) {
    const dir = `workflows/${id}/`;
    const { nodes, edges } = buildGraph(options.stepsPerWorkflow);
    const graph = {
      schemaVersion: '1.1',
      entryNodeId: nodes[0]!.id,
      nodes: nodes.map((n) => ({ id: n.id, type: n.type, file: `${dir}steps/${n.id}.md`, title: n.title, agentId: n.agentId })),
      edges,
      metadata: { owner: 'finance' },
    };
    files.set(`${dir}workflow.md`, workflowMd(id, `Expense review ${w + 1}`, nodes[0]!.id, nodes, random));
    files.set(`${dir}workflow.graph.json`, `${JSON.stringify(graph, null, 2)}\n`);
    const outgoing = new Map<string, Edge[]>(nodes.map((n) => [n.id, []]));
    for (const e of edges) outgoing.get(e.from)!.push(e);
    nodes.forEach((node, i) => {
      files.set(`${dir}steps/${node.id}.md`, stepFile(node, outgoing.get(node.id)!, i, options.stepBodyBytes, random));
    });
  }
  for (const [path, text] of assets(options.assetBytes ?? 4 * 1024, random)) files.set(path, text);
  return files;
}
