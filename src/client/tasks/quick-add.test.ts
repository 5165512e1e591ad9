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
