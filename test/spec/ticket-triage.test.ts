// Spec conformance of the two-workflows package's ticket-triage workflow files (harness: conformance.ts).
import { describeConformance } from './conformance.ts';

describeConformance('two-workflows', {
  name: 'ticket-triage workflow',
  only: (path) => path.startsWith('workflows/ticket-triage/'),
});
