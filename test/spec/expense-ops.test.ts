// Spec conformance of the multi-workflow example and its mutations (harness: conformance.ts); the
// expense-compliance workflow's files are in expense-compliance.test.ts so the two run in parallel.
import { describeConformance } from './conformance.ts';

describeConformance('expense-ops', {
  name: 'manifest, agents, variance-analysis',
  only: (path) => !path.startsWith('workflows/expense-compliance/'),
});
