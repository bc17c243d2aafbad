// Spec conformance of expense-ops' expense-compliance workflow files (harness: conformance.ts).
import { describeConformance } from './conformance.ts';

describeConformance('expense-ops', {
  name: 'expense-compliance workflow',
  only: (path) => path.startsWith('workflows/expense-compliance/'),
});
