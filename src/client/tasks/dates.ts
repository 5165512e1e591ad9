/**
 * A due date (YYYY-MM-DD) in the reader's locale. It is read as a local calendar date: parsed as UTC
 * midnight it would show the day before anywhere west of Greenwich.
 */
export function formatDueDate(dueDate: string): string {
  const [y, m, d] = dueDate.split('-').map(Number);
  if (!y || !m || !d) return dueDate;
  return new Date(y, m - 1, d).toLocaleDateString();
}

/** YYYY-MM-DD of a day in the reader's own time zone. */
export function localIsoDate(day: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** Whether a due date has passed or is today, in the reader's calendar; null otherwise. */
export function dueUrgency(dueDate: string, today: Date = new Date()): 'overdue' | 'today' | null {
  const todayIso = localIsoDate(today);
  if (dueDate < todayIso) return 'overdue';
  return dueDate === todayIso ? 'today' : null;
}
