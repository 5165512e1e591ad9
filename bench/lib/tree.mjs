// Issue 29's sub-task tree, shared by the benches that measure it (bench/subtasks.bench.mjs through
// the API, bench/list.bench.mjs in the browser): 5,000 tasks of which 2,000 are sub-tasks up to 4
// levels deep, as 450 chains of 4 under top-level tasks and one parent of 200 direct sub-tasks.
export const TREE = { total: 5000, subtasks: 2000, big: 200, depth: 4 };
export const CHAINS = (TREE.subtasks - TREE.big) / TREE.depth;

/**
 * The tree in a file's order (a parent before its sub-tasks): each task's parent as an index into
 * the list, or null for a top-level task. The chains hang under the first 450 top-level tasks, the
 * 200 under the next one, so the tree is at the top of the list.
 */
export function treeParents() {
  const parents = [];
  for (let top = 0; top < TREE.total - TREE.subtasks; top++) {
    const topIndex = parents.push(null) - 1;
    if (top < CHAINS) {
      let parent = topIndex;
      for (let level = 1; level <= TREE.depth; level++) parent = parents.push(parent) - 1;
    } else if (top === CHAINS) {
      for (let step = 0; step < TREE.big; step++) parents.push(topIndex);
    }
  }
  return parents;
}
