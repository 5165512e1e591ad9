import type { Priority } from '../../common/tasks';

/** What people read about priorities, labels and saved filters (issue 23). */
export const LABEL_COPY = {
  priority: 'Priority',
  anyPriority: 'Any priority',
  labels: 'Labels',
  anyLabel: 'Any label',
  noLabelsYet: 'No labels yet: type @name in “Add a task” to make one.',
  sort: 'Sort',
  savedFilters: 'Filters',
  saveFilter: 'Save filter',
  saveFilterDescription: 'It appears in the sidebar and the command palette.',
  name: 'Name',
  filterSaved: 'Filter saved.',
  saveFilterFailed: 'The filter could not be saved.',
  deleteFilter: (name: string) => `Delete filter ${name}`,
  filterDeleted: 'Filter deleted.',
  deleteFilterFailed: 'The filter could not be deleted.',
  deleteLabel: (name: string) => `Delete label ${name}`,
  editLabel: (name: string) => `Edit label ${name}`,
  editLabelTitle: 'Edit label',
  editLabelDescription: 'Every task with this label shows the change.',
  labelSaved: 'Label saved.',
  updateLabelFailed: 'The label could not be saved.',
  labelDeleted: 'Label deleted.',
  deleteLabelFailed: 'The label could not be deleted.',
  createLabel: (name: string) => `Create label “${name}”`,
  createLabelFailed: 'The label could not be created.',
  removeLabel: (name: string) => `Remove label ${name}`,
  removePriority: (text: string) => `Remove priority ${text}`,
  updateFailed: 'The task could not be changed.',
  goToFilter: (name: string) => `Go to filter ${name}`,
} as const;

/** Each priority's words: 'P1'...'P3' on a card, P4 (none) shows nothing. */
export const PRIORITY_TEXT: Record<Priority, { short: string; long: string }> = {
  1: { short: 'P1', long: 'Priority 1 (urgent)' },
  2: { short: 'P2', long: 'Priority 2 (high)' },
  3: { short: 'P3', long: 'Priority 3 (medium)' },
  4: { short: 'P4', long: 'Priority 4 (none)' },
};
