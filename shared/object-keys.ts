/**
 * Object keys name every file of a package the same way in history, the AI overlay and the
 * UI, as `kind:id` strings: `graph:<workflowId>`, `step:<workflowId>/<nodeId>`, `asset:<path>`, …
 */
export type ObjectKey =
  | { kind: 'workflow'; workflowId: string }
  | { kind: 'graph'; workflowId: string }
  | { kind: 'step'; workflowId: string; nodeId: string }
  | { kind: 'workflow-name'; workflowId: string }
  | { kind: 'agent'; agentId: string }
  | { kind: 'asset'; path: string };

export function formatObjectKey(key: ObjectKey): string {
  switch (key.kind) {
    case 'workflow':
    case 'graph':
    case 'workflow-name':
      return `${key.kind}:${key.workflowId}`;
    case 'step':
      return `step:${key.workflowId}/${key.nodeId}`;
    case 'agent':
      return `agent:${key.agentId}`;
    case 'asset':
      return `asset:${key.path}`;
    default: {
      const never: never = key;
      throw new Error(`unknown object key ${String(never)}`);
    }
  }
}

export function parseObjectKey(text: string): ObjectKey | undefined {
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  const kind = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (!rest) return undefined;
  switch (kind) {
    case 'workflow':
    case 'graph':
    case 'workflow-name':
      return { kind, workflowId: rest };
    case 'step': {
      const slash = rest.indexOf('/');
      if (slash <= 0 || slash === rest.length - 1) return undefined;
      return { kind: 'step', workflowId: rest.slice(0, slash), nodeId: rest.slice(slash + 1) };
    }
    case 'agent':
      return { kind: 'agent', agentId: rest };
    case 'asset':
      return { kind: 'asset', path: rest };
    default:
      return undefined;
  }
}
