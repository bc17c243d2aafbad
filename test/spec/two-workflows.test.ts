// Spec conformance of the multi-workflow test package and its mutations (harness: conformance.ts); the
// ticket-triage workflow's files are in ticket-triage.test.ts so the two run in parallel.
import { describeConformance } from './conformance.ts';

describeConformance('two-workflows', {
  name: 'manifest, agents, weekly-report',
  only: (path) => !path.startsWith('workflows/ticket-triage/'),
});
