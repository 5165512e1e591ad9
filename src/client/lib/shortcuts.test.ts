import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { shortcutFor } from './shortcuts';

// The unit tests run in Node: a stand-in for the DOM's elements is enough for isTyping.
class FakeElement {
  isContentEditable = false;
  constructor(public tagName: string) {}
}

const press = (key: string, extra: Partial<Parameters<typeof shortcutFor>[0]> = {}) =>
  shortcutFor({
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

describe('shortcutFor', () => {
  beforeAll(() => vi.stubGlobal('HTMLElement', FakeElement));
  afterAll(() => vi.unstubAllGlobals());

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
