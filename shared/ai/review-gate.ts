/**
 * Whether the review lets a version be applied, and why not, in the words both the session object
 * (which refuses Apply) and the Workbench (which disables it) use: one function, one reason.
 */
export interface ReviewGateInput {
  /** Approvals the project requires (project settings, 0–10). */
  required: number;
  /** Approvals of this version's content from people allowed to approve it. */
  counted: number;
  /** Open "request changes", by whom. */
  openRequests: ReadonlyArray<{ userName: string }>;
  /** An owner let this version go without the required approvals. */
  overridden: boolean;
}

export interface ReviewBlock {
  code: 'AI_CHANGES_REQUESTED' | 'AI_APPROVALS_REQUIRED';
  message: string;
}

/** Names as "Ana", "Ana and Bo", "Ana, Bo and Cy". */
function names(list: readonly string[]): string {
  if (list.length <= 1) return list[0] ?? '';
  return `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

/** null when the review allows apply; otherwise the blocking reason (requests for changes first). */
export function reviewBlock(input: ReviewGateInput): ReviewBlock | null {
  if (input.openRequests.length > 0) {
    const who = names([...new Set(input.openRequests.map((r) => r.userName))]);
    return {
      code: 'AI_CHANGES_REQUESTED',
      message: `${who} asked for changes. Apply waits until ${input.openRequests.length === 1 ? 'they approve' : 'each approves'} a later version or withdraws the request, or an owner dismisses it.`,
    };
  }
  if (!input.overridden && input.counted < input.required) {
    return {
      code: 'AI_APPROVALS_REQUIRED',
      message: `This project needs ${input.required} approval${input.required === 1 ? '' : 's'} from someone who did not ask for or edit this change; this version has ${input.counted}.`,
    };
  }
  return null;
}
