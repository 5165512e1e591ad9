import { describe, expect, it } from 'vitest';
import { fakeBus } from '../testing/bus';
import { createScopeCache } from './scope-cache';

const scope = (projectId: number, version = 1) => ({ projectId, role: 'editor' as const, version });

describe('the task lists’ scope cache', () => {
  it('serves a scope for two seconds at most, then asks again', () => {
    let now = 1000;
    const cache = createScopeCache(fakeBus(), { now: () => now });
    cache.set(1, 7, scope(7), cache.generation());
    expect(cache.get(1, 7)).toMatchObject(scope(7));
    expect(cache.get(2, 7)).toBeUndefined();
    now += 1999;
    expect(cache.get(1, 7)).toBeDefined();
    now += 1;
    expect(cache.get(1, 7)).toBeUndefined();
  });

  it('forgets every caller’s scope of a project that changed, and only those', async () => {
    const bus = fakeBus();
    const cache = createScopeCache(bus);
    cache.set(1, 7, scope(7), cache.generation());
    cache.set(2, 7, scope(7), cache.generation());
    // The Inbox is cached by caller, and forgotten by its project's id like any other.
    cache.set(1, undefined, scope(9), cache.generation());
    await bus.invalidate({ projects: [7] });
    expect([cache.get(1, 7), cache.get(2, 7)]).toEqual([undefined, undefined]);
    expect(cache.get(1, undefined)).toMatchObject(scope(9));
    await bus.invalidate({ projects: [9] });
    expect(cache.get(1, undefined)).toBeUndefined();
    // Sessions' invalidations are not about lists.
    cache.set(1, 7, scope(7), cache.generation());
    await bus.invalidate({ userId: 1 });
    expect(cache.get(1, 7)).toBeDefined();
  });

  it('does not keep what was read before a change, nor serve anything while the bus is cut', async () => {
    const bus = fakeBus();
    const cache = createScopeCache(bus);
    const readAt = cache.generation();
    await bus.invalidate({ projects: [7] });
    cache.set(1, 7, scope(7), readAt);
    expect(cache.get(1, 7)).toBeUndefined();
    cache.set(1, 7, scope(7), cache.generation());
    bus.connected = false;
    expect(cache.get(1, 7)).toBeUndefined();
    cache.set(1, 7, scope(7), cache.generation());
    expect(cache.get(1, 7)).toBeUndefined();
  });
});
