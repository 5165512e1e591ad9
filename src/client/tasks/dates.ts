/**
 * A due date (YYYY-MM-DD) in the reader's locale. It is read as a local calendar date: parsed as UTC
 * midnight it would show the day before anywhere west of Greenwich.
 */
export function formatDueDate(dueDate: string): string {
  const [y, m, d] = dueDate.split('-').map(Number);
  if (!y || !m || !d) return dueDate;
  return new Date(y, m - 1, d).toLocaleDateString();
}
