import { describe, expect, it } from 'vitest';
import { TOAST_LIMIT, type ToasterToast, toastReducer } from './use-toast';

const make = (id: string): ToasterToast => ({ id, open: true, title: `Toast ${id}` });

describe('toastReducer', () => {
  it('shows only the newest toast (spec §9: one at a time)', () => {
    expect(TOAST_LIMIT).toBe(1);
    const state = toastReducer(toastReducer({ toasts: [] }, { type: 'ADD_TOAST', toast: make('1') }), {
      type: 'ADD_TOAST',
      toast: make('2'),
    });
    expect(state.toasts.map((t) => t.id)).toEqual(['2']);
  });

  it('closes a dismissed toast without removing it', () => {
    const state = toastReducer({ toasts: [make('1')] }, { type: 'DISMISS_TOAST', toastId: '1' });
    expect(state.toasts).toEqual([{ ...make('1'), open: false }]);
  });

  it('closes every toast when dismissing without an id', () => {
    const state = toastReducer({ toasts: [make('1'), make('2')] }, { type: 'DISMISS_TOAST' });
    expect(state.toasts.every((t) => !t.open)).toBe(true);
  });

  it('removes one toast, or all', () => {
    const toasts = [make('1'), make('2')];
    expect(toastReducer({ toasts }, { type: 'REMOVE_TOAST', toastId: '1' }).toasts.map((t) => t.id)).toEqual([
      '2',
    ]);
    expect(toastReducer({ toasts }, { type: 'REMOVE_TOAST' }).toasts).toEqual([]);
  });
});
