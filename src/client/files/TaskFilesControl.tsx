/** Seam: the per-task files badge and dropdown (spec §2 'Per-task files control'). Files issue fills it. */
export function TaskFilesControl(_props: { taskId: number }) {
  return null;
}
