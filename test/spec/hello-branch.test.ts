// Spec conformance of the single-workflow example and its mutations (harness: conformance.ts).
import { describeConformance } from './conformance.ts';

describeConformance('hello-branch');
