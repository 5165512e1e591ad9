import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SEQUENCE_TIMEOUT_MS, shortcutFor, shortcutReader } from './shortcuts';

// The unit tests run in Node: a stand-in for the DOM's elements is enough for isTyping.
class FakeElement {
  isContentEditable = false;
  constructor(public tagName: string) {}
}

const keyPress = (key: string, extra: Partial<Parameters<typeof shortcutFor>[0]> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  isComposing: false,
  repeat: false,
  target: new FakeElement('BODY') as unknown as EventTarget,
  ...extra,
});
const press = (key: string, extra: Partial<Parameters<typeof shortcutFor>[0]> = {}) =>
  shortcutFor(keyPress(key, extra));

describe('shortcutFor', () => {
  beforeAll(() => vi.stubGlobal('HTMLElement', FakeElement));
  afterAll(() => vi.unstubAllGlobals());

  it('moves a focused task a day on with Alt and the arrows (Upcoming), never while typing', () => {
    expect(press('ArrowDown', { altKey: true })).toBe('next-day');
    expect(press('ArrowUp', { altKey: true })).toBe('previous-day');
    expect(press('ArrowDown')).toBeNull();
    expect(press('ArrowDown', { altKey: true, shiftKey: true })).toBeNull();
    expect(press('ArrowDown', { altKey: true, ctrlKey: true })).toBeNull();
    const field = new FakeElement('INPUT') as unknown as EventTarget;
    expect(press('ArrowDown', { altKey: true, target: field })).toBeNull();
  });

  it('maps the single keys', () => {
    expect(['n', '/', 'j', 'k', 'Enter', 'e', 'x', '?'].map((key) => press(key))).toEqual([
      'new-task',
      'search',
      'next-card',
      'previous-card',
      'expand',
      'edit-title',
      'complete',
      'help',
    ]);
    expect(press('q')).toBeNull();
    expect(press('Delete')).toBeNull();
  });

  it('takes Shift only where named', () => {
    expect(press('?', { shiftKey: true })).toBe('help');
    expect(press('Delete', { shiftKey: true })).toBe('delete');
    expect(press('N', { shiftKey: true })).toBeNull();
    expect(press('J', { shiftKey: true })).toBeNull();
  });

  it('stays quiet with a modifier held, except Ctrl/Cmd+K', () => {
    expect(press('n', { altKey: true })).toBeNull();
    expect(press('j', { ctrlKey: true })).toBeNull();
    expect(press('x', { metaKey: true })).toBeNull();
    expect(press('k', { ctrlKey: true })).toBe('palette');
    expect(press('k', { metaKey: true })).toBe('palette');
    expect(press('K', { ctrlKey: true, shiftKey: true })).toBeNull();
  });

  it('nests and un-nests with Ctrl/Cmd+] and Ctrl/Cmd+[ (issue 29), not in a text field', () => {
    expect(press(']', { ctrlKey: true })).toBe('nest');
    expect(press(']', { metaKey: true })).toBe('nest');
    expect(press('[', { ctrlKey: true })).toBe('unnest');
    expect(press('[', { metaKey: true })).toBe('unnest');
    expect(press(']')).toBeNull();
    expect(press('[', { ctrlKey: true, altKey: true })).toBeNull();
    expect(
      press(']', { target: new FakeElement('INPUT') as unknown as EventTarget, ctrlKey: true }),
    ).toBeNull();
  });

  it('stays quiet in text fields, but Ctrl/Cmd+K works there', () => {
    for (const tag of ['INPUT', 'TEXTAREA', 'SELECT']) {
      const target = new FakeElement(tag) as unknown as EventTarget;
      expect(press('n', { target })).toBeNull();
      expect(press('?', { target, shiftKey: true })).toBeNull();
      expect(press('k', { target, ctrlKey: true })).toBe('palette');
    }
    const editable = Object.assign(new FakeElement('DIV'), { isContentEditable: true });
    expect(press('x', { target: editable as unknown as EventTarget })).toBeNull();
  });

  it('ignores keys pressed while composing', () => {
    expect(press('n', { isComposing: true })).toBeNull();
  });
});

describe('shortcutReader', () => {
  beforeAll(() => vi.stubGlobal('HTMLElement', FakeElement));
  afterAll(() => vi.unstubAllGlobals());

  const reader = () => {
    const read = shortcutReader();
    return (key: string, timeStamp: number, extra: Partial<Parameters<typeof shortcutFor>[0]> = {}) =>
      read({ ...keyPress(key, extra), timeStamp });
  };

  it("reads 'g' then 'i' or 'a' as going to the Inbox or to Assigned to me", () => {
    const read = reader();
    expect(read('g', 0)).toBeNull();
    expect(read('i', 100)).toBe('go-inbox');
    expect(read('g', 200)).toBeNull();
    expect(read('a', 300)).toBe('go-assigned');
    // The sequence is used up: 'a' alone is nothing, 'n' alone is still a new task.
    expect(read('a', 400)).toBeNull();
    expect(read('g', 500)).toBeNull();
    expect(read('n', 600)).toBe('new-task');
    expect(read('i', 700)).toBeNull();
  });

  it('forgets the first key after a pause, in a text field, or with a modifier', () => {
    const read = reader();
    expect(read('g', 0)).toBeNull();
    expect(read('i', SEQUENCE_TIMEOUT_MS + 1)).toBeNull();
    const input = new FakeElement('INPUT') as unknown as EventTarget;
    expect(read('g', 5000, { target: input })).toBeNull();
    expect(read('i', 5100)).toBeNull();
    expect(read('g', 6000, { ctrlKey: true })).toBeNull();
    expect(read('a', 6100)).toBeNull();
    expect(read('g', 7000)).toBeNull();
    expect(read('i', 7100, { target: input })).toBeNull();
  });
});
