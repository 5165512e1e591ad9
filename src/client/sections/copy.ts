import { NO_SECTION } from '../../common/sections';

/** The words of sections, the grouped list and the board (issue 23), named once for the screens and their tests. */
export const SECTION_COPY = {
  noSection: NO_SECTION,
  view: 'View',
  list: 'List',
  board: 'Board',
  addSection: 'Add section',
  sectionName: 'Section name',
  save: 'Save',
  rename: 'Rename section',
  renameOf: (name: string) => `Rename section ${name}`,
  deleteOf: (name: string) => `Delete section ${name}`,
  deleteTitle: (name: string) => `Delete section “${name}”?`,
  deleteDescription: "Its tasks stay in the project, under 'No section'.",
  delete: 'Delete',
  collapse: (name: string) => `Collapse ${name}`,
  expand: (name: string) => `Expand ${name}`,
  taskCount: (count: number) => `${count} ${count === 1 ? 'task' : 'tasks'}`,
  moveColumn: (name: string) => `Drag to move column ${name}`,
  moveCard: 'Drag to move',
  /** A column's scroll, focusable when its cards have no handles (a viewer, a filter) to scroll by keyboard. */
  columnCards: (name: string) => `Cards in ${name}`,
  addTaskTo: (name: string) => `Add a task to ${name}`,
  addATask: 'Add a task',
  taskTitle: 'Task title',
  saveFailed: 'Could not save the section.',
  deleteFailed: 'Could not delete the section.',
  moveFailed: 'Could not move the task.',
  columnMoveFailed: 'Could not move the section.',
  sectionAdded: 'Section added',
  sectionDeleted: 'Section deleted',
} as const;
