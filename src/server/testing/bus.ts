import type { Invalidation } from '../live/bus';

/** A live bus's invalidation side, in memory, whose connection a test can cut (`bus.connected = false`). */
export function fakeBus() {
  const listeners: Array<(message: Invalidation) => void> = [];
  const bus = {
    connected: true,
    invalidate: async (message: Invalidation) => {
      for (const listener of listeners) listener(message);
    },
    onInvalidate: (listener: (message: Invalidation) => void) => {
      listeners.push(listener);
      return { connected: () => bus.connected };
    },
  };
  return bus;
}
