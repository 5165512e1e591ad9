/** The words of Today, Upcoming and the calendar (issue 23). */
export const VIEW_COPY = {
  today: 'Today',
  upcoming: 'Upcoming',
  calendar: 'Calendar',
  overdue: 'Overdue',
  tomorrow: 'Tomorrow',
  addTask: 'Add a task',
  taskName: 'Task name',
  add: 'Add',
  cancel: 'Cancel',
  todayEmpty: 'Nothing due today',
  todayEmptyHint: (onlyAssigned: boolean) =>
    onlyAssigned
      ? 'Tasks due today and overdue ones, in your Inbox and assigned to you, show here.'
      : 'Tasks due today and overdue ones, in your Inbox, assigned to you or to nobody in a project you edit, show here.',
  onlyAssigned: 'Only tasks assigned to me',
  upcomingHint:
    'The next 14 days. Drag a task to another day to reschedule it, or press Alt+↓ or Alt+↑ on it.',
  nothingDue: 'Nothing due.',
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  thisMonth: 'This month',
  listView: 'List',
  calendarHint:
    'Arrow keys move between days; Enter opens a day. Drag a task to another day to reschedule it.',
  agendaEmpty: 'Nothing due this month.',
  moreTasks: (count: number) => `+${count} more`,
  rescheduleFailed: 'Could not reschedule the task',
  addFailed: 'Could not add the task',
  dayLabel: (heading: string, count: number) =>
    count === 0 ? `${heading}, nothing due` : `${heading}, ${count} ${count === 1 ? 'task' : 'tasks'}`,
} as const;
