/**
 * Spec §4: completing a task archives it, and restoring or reopening one makes it active again. The
 * two flags are one state, whichever of them a change names and wherever it comes from: the app,
 * the REST API, MCP, an import. Issue 20: MCP's complete_task set `completed` alone, and the task
 * left the app's list without reaching its archive.
 *
 * Whether the task is done after this change, or undefined when the change names neither flag.
 * Either flag set means done (a task is never half done); naming only false ones reopens it.
 */
export function doneAfter(change: { completed?: boolean; archived?: boolean }): boolean | undefined {
  if (change.completed === undefined && change.archived === undefined) return undefined;
  return change.completed === true || change.archived === true;
}
