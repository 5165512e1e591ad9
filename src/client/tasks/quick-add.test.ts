import { describe, expect, it } from 'vitest';
import { parseQuickAdd } from './quick-add';

// A Wednesday, mid-morning local time.
const NOW = new Date(2026, 10, 25, 10, 0);

describe('parseQuickAdd', () => {
  it("reads 'tomorrow' and takes it out of the title", () => {
    expect(parseQuickAdd('Pay rent tomorrow', NOW)).toEqual({
      title: 'Pay rent',
      dueDate: '2026-11-26',
      dateText: 'tomorrow',
    });
  });

  it("reads 'next fri' forward from today", () => {
    const { title, dueDate } = parseQuickAdd('Call Ana next fri', NOW);
    expect(title).toBe('Call Ana');
    expect(dueDate).toMatch(/^2026-1[12]-\d\d$/);
    expect(new Date(`${dueDate}T12:00`).getDay()).toBe(5);
    expect(dueDate! > '2026-11-25').toBe(true);
  });

  it("reads an ISO date and takes 'due' with it", () => {
    expect(parseQuickAdd('Report due 2027-03-01', NOW)).toEqual({
      title: 'Report',
      dueDate: '2027-03-01',
      dateText: 'due 2027-03-01',
    });
  });

  it("takes 'by' and 'on' with the date", () => {
    expect(parseQuickAdd('Submit the form by monday', NOW)).toMatchObject({
      title: 'Submit the form',
      dueDate: '2026-11-30',
      dateText: 'by monday',
    });
    expect(parseQuickAdd('Pay rent on friday', NOW)).toMatchObject({
      title: 'Pay rent',
      dueDate: '2026-11-27',
    });
  });

  it('keeps a linking word that is part of a longer word', () => {
    expect(parseQuickAdd('Call Ron tomorrow', NOW).title).toBe('Call Ron');
    expect(parseQuickAdd('Read Nabokov tomorrow', NOW).title).toBe('Read Nabokov');
  });

  it('keeps words after the date', () => {
    expect(parseQuickAdd('Tomorrow call the bank', NOW)).toMatchObject({
      title: 'call the bank',
      dueDate: '2026-11-26',
    });
  });

  it('leaves a text without a date alone', () => {
    expect(parseQuickAdd('  Buy 2   apples ', NOW)).toEqual({
      title: 'Buy 2 apples',
      dueDate: null,
      dateText: null,
    });
    expect(parseQuickAdd('', NOW)).toEqual({ title: '', dueDate: null, dateText: null });
  });

  it('does not take a time alone for a due date', () => {
    expect(parseQuickAdd('Call at 5', NOW)).toEqual({ title: 'Call at 5', dueDate: null, dateText: null });
  });

  it('keeps the words as the title when the text is only a date', () => {
    expect(parseQuickAdd('tomorrow', NOW)).toEqual({
      title: 'tomorrow',
      dueDate: '2026-11-26',
      dateText: 'tomorrow',
    });
    expect(parseQuickAdd('due friday', NOW)).toMatchObject({ title: 'due friday', dueDate: '2026-11-27' });
  });

  it('gives the local calendar date late in the evening', () => {
    expect(parseQuickAdd('Pay rent tomorrow', new Date(2026, 10, 25, 23, 30)).dueDate).toBe('2026-11-26');
  });
});

describe('parseQuickAdd: times, repeats and reminders (issue 22)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    [
      'Stand-up every monday',
      {
        title: 'Stand-up',
        dueDate: '2026-11-30',
        recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO', from: 'due', text: 'every monday' },
      },
    ],
    [
      'Report every weekday',
      { title: 'Report', dueDate: '2026-11-25', recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' } },
    ],
    [
      'Clean every 2 weeks',
      { title: 'Clean', dueDate: '2026-11-25', recurrence: { rule: 'FREQ=WEEKLY;INTERVAL=2' } },
    ],
    [
      'Rent every month on the 15th',
      { title: 'Rent', dueDate: '2026-12-15', recurrence: { rule: 'FREQ=MONTHLY;BYMONTHDAY=15' } },
    ],
    [
      'Birthday every year on 3 March',
      {
        title: 'Birthday',
        dueDate: '2027-03-03',
        recurrence: { rule: 'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3' },
      },
    ],
    // 09:00 has passed at 10:00 today: the first is tomorrow.
    [
      'Meds every day at 9am',
      { title: 'Meds', dueDate: '2026-11-26', dueTime: '09:00', recurrence: { rule: 'FREQ=DAILY' } },
    ],
    [
      'Water plants every! 3 days',
      {
        title: 'Water plants',
        dueDate: '2026-11-25',
        recurrence: { rule: 'FREQ=DAILY;INTERVAL=3', from: 'completion' },
      },
    ],
    ['Call Ana tomorrow at 14:30', { title: 'Call Ana', dueDate: '2026-11-26', dueTime: '14:30' }],
    ['Call Ana at 5pm', { title: 'Call Ana', dueDate: '2026-11-25', dueTime: '17:00' }],
    ['Call Ana friday 5pm', { title: 'Call Ana', dueDate: '2026-11-27', dueTime: '17:00' }],
  ];
  for (const [text, expected] of cases) {
    it(`reads '${text}'`, () => {
      expect(parseQuickAdd(text, NOW)).toMatchObject(expected);
    });
  }

  it("reads 'every monday at 9am' as a weekly rule with a time", () => {
    expect(parseQuickAdd('Team sync every monday at 9am', NOW)).toMatchObject({
      title: 'Team sync',
      dueDate: '2026-11-30',
      dueTime: '09:00',
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO', from: 'due', text: 'every monday at 9am' },
    });
  });

  it("reads 'remind me at 5pm' and 'remind me 30 min before' as reminders, out of the title", () => {
    const at = parseQuickAdd('Pay rent tomorrow remind me at 5pm', NOW);
    expect(at).toMatchObject({ title: 'Pay rent', dueDate: '2026-11-26' });
    expect(at.dueTime).toBeUndefined();
    expect(at.reminders).toEqual([{ at: new Date(2026, 10, 26, 17, 0).toISOString() }]);
    const before = parseQuickAdd('Dentist friday at 10:00 remind me 30 min before', NOW);
    expect(before).toMatchObject({
      title: 'Dentist',
      dueDate: '2026-11-27',
      dueTime: '10:00',
      reminders: [{ relativeMinutes: 30 }],
    });
    expect(parseQuickAdd('Train remind me 1 hour before', NOW).reminders).toEqual([{ relativeMinutes: 60 }]);
  });

  it("takes the reminder's words out of the title with no date too (issue 28)", () => {
    const call = parseQuickAdd('Call mom remind me at 5pm', NOW, 'Asia/Kolkata');
    expect(call).toMatchObject({ title: 'Call mom', dueDate: null, undated: 'Call mom' });
    expect(call.reminderText).toBe('remind me at 5pm');
    // 17:00 in the person's zone, on today there: 11:30 UTC in Kolkata (UTC+5:30).
    expect(call.reminders).toEqual([{ at: '2026-11-25T11:30:00.000Z' }]);
    const dentist = parseQuickAdd('Dentist tomorrow at 3pm remind me 30 min before', NOW, 'Asia/Kolkata');
    expect(dentist).toMatchObject({
      title: 'Dentist',
      dueDate: '2026-11-26',
      dueTime: '15:00',
      reminders: [{ relativeMinutes: 30 }],
      reminderText: 'remind me 30 min before',
      // The title to save when the date's chip is taken off: its words come back, the reminder's do not.
      undated: 'Dentist tomorrow at 3pm',
    });
  });

  it("reads a reminder's time on the due date in the person's zone", () => {
    const at = parseQuickAdd('Pay rent tomorrow remind me at 5pm', NOW, 'America/New_York');
    expect(at.reminders).toEqual([{ at: '2026-11-26T22:00:00.000Z' }]);
  });

  it('leaves words that only look like a rule', () => {
    expect(parseQuickAdd('Write the weekly report', NOW)).toEqual({
      title: 'Write the weekly report',
      dueDate: null,
      dateText: null,
    });
    expect(parseQuickAdd('Read everything', NOW)).toEqual({
      title: 'Read everything',
      dueDate: null,
      dateText: null,
    });
    expect(parseQuickAdd('Fix every other thing', NOW)).toEqual({
      title: 'Fix every other thing',
      dueDate: null,
      dateText: null,
    });
  });
});
