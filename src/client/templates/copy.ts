import { counted } from '../../common/plural';

/** The words of the templates' dialogs (issue 29), named once for the dialogs and their tests. */
export const TEMPLATE_COPY = {
  saveAsTemplate: 'Save as template',
  saveDescription: (project: string) =>
    `Keeps the open tasks of “${project}” with their sections, sub-tasks, labels, priorities and checklists, and due dates as days from today. Only you see your templates.`,
  templateName: 'Template name',
  saveTemplate: 'Save template',
  saved: 'Template saved',
  savedDescription: (name: string) => `Start a project from “${name}” with New project from template.`,
  saveFailed: 'Could not save the template.',
  newFromTemplate: 'New project from template',
  newDescription:
    'A project of your own with the template’s sections and tasks; due dates count from the start date.',
  template: 'Template',
  noTemplates: 'You have no templates yet. Open a project and choose Save as template.',
  loadFailed: 'Could not load your templates.',
  retry: 'Try again',
  projectName: 'Project name',
  startDate: 'Start date',
  createProject: 'Create project',
  projectCreated: 'Project created',
  createFailed: 'Could not create the project.',
  chooseTemplate: 'Choose a template',
  taskCount: (count: number) => counted(count, 'task', 'tasks'),
  deleteTemplate: (name: string) => `Delete template ${name}`,
  deleted: 'Template deleted',
  deleteFailed: 'Could not delete the template.',
} as const;
