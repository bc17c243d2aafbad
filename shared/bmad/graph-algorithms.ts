/** Graph helpers over node indices: strongly connected components and reachability, iteratively. */

/**
 * Tarjan's strongly connected components over the nodes where `include(i)` holds, using an explicit
 * stack so a long chain cannot overflow the call stack.
 */
export function stronglyConnectedComponents(
  count: number,
  successors: ReadonlyArray<readonly number[]>,
  include: (i: number) => boolean = () => true,
): number[][] {
  const index = new Array<number>(count).fill(-1);
  const low = new Array<number>(count).fill(0);
  const onStack = new Array<boolean>(count).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let next = 0;
  for (let root = 0; root < count; root++) {
    if (!include(root) || index[root] !== -1) continue;
    const work: Array<{ node: number; edge: number }> = [{ node: root, edge: 0 }];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = true;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const succ = successors[frame.node] ?? [];
      if (frame.edge < succ.length) {
        const to = succ[frame.edge++]!;
        if (!include(to)) continue;
        if (index[to] === -1) {
          index[to] = low[to] = next++;
          stack.push(to);
          onStack[to] = true;
          work.push({ node: to, edge: 0 });
        } else if (onStack[to]) {
          low[frame.node] = Math.min(low[frame.node]!, index[to]!);
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.node] = Math.min(low[parent.node]!, low[frame.node]!);
      if (low[frame.node] === index[frame.node]) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop()!;
          onStack[member] = false;
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort((a, b) => a - b));
      }
    }
  }
  return components;
}

/** Whether a component is a cycle: more than one node, or one node with an edge to itself. */
export function isCyclic(component: readonly number[], successors: ReadonlyArray<readonly number[]>): boolean {
  if (component.length > 1) return true;
  const only = component[0]!;
  return (successors[only] ?? []).includes(only);
}

export function reachableFrom(start: number, successors: ReadonlyArray<readonly number[]>): Set<number> {
  const seen = new Set<number>([start]);
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const to of successors[node] ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}
