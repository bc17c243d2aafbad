// Spec conformance of the single-workflow test package and its mutations (harness: conformance.ts).
import { describeConformance } from './conformance.ts';

describeConformance('branching');
