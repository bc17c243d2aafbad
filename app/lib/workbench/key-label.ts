/**
 * What a thread or a notice calls a staged file: its package path when the changes name it
 * ("workflows/vendor-intake/steps/capture-request.md"), never the internal object key
 * ("step:vendor-intake/capture-request"); an asset's key is its path; any other key not among the
 * changes (a file since undone) reads as its ids joined by "›".
 */
import { parseObjectKey } from '../../../shared/object-keys.ts';

export function keyLabel(key: string, files: ReadonlyArray<{ key: string; path?: string | undefined }>): string {
  const path = files.find((f) => f.key === key)?.path;
  if (path) return path;
  const parsed = parseObjectKey(key);
  if (!parsed) return key;
  switch (parsed.kind) {
    case 'asset':
      return parsed.path;
    case 'step':
      return `${parsed.workflowId} › ${parsed.nodeId}`;
    case 'agent':
      return parsed.agentId;
    default:
      return parsed.workflowId;
  }
}
