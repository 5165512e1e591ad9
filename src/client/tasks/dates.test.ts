import { afterEach, describe, expect, it } from 'vitest';
import { dueUrgency, formatDueDate } from './dates';

describe('formatDueDate', () => {
  const originalTz = process.env.TZ;
  afterEach(() => {
    process.env.TZ = originalTz;
  });

  it('shows the calendar date written, even west of Greenwich', () => {
    process.env.TZ = 'America/Los_Angeles';
    expect(formatDueDate('2030-05-17')).toBe(new Date(2030, 4, 17).toLocaleDateString());
    expect(new Date(2030, 4, 17).getDate()).toBe(17);
    // Read as UTC midnight, the same string would be the 16th here.
    expect(new Date('2030-05-17').getDate()).toBe(16);
  });

  it('leaves a value it cannot read as it is', () => {
    expect(formatDueDate('soon')).toBe('soon');
  });
});

describe('dueUrgency', () => {
  const today = new Date(2030, 4, 17, 23, 30);

  it('says overdue before today and today on the day, by the reader’s calendar', () => {
    expect(dueUrgency('2030-05-16', today)).toBe('overdue');
    expect(dueUrgency('2029-12-31', today)).toBe('overdue');
    expect(dueUrgency('2030-05-17', today)).toBe('today');
    expect(dueUrgency('2030-05-18', today)).toBeNull();
  });
});
