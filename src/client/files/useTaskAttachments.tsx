import type { ReactNode } from 'react';

export interface TaskAttachments {
  /** The attachments field of the Add New Task form. */
  field: ReactNode;
  /** True while files are being uploaded (the form stays open and removal is disabled). */
  isUploading: boolean;
  /** Uploads the chosen files to the new task; resolves false when some failed (the hook shows the toast). */
  uploadFor(taskId: number): Promise<boolean>;
  reset(): void;
}

/** Seam: attachments in the Add New Task form (spec §4, §5). Files issue fills it. */
export function useTaskAttachments(): TaskAttachments {
  return { field: null, isUploading: false, uploadFor: async () => true, reset: () => {} };
}
