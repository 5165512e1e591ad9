import Fastify, { type FastifyInstance } from 'fastify';
import { createLoginGuard } from '../../auth/login-guard';
import type { UserRow } from '../../db/schema';
import { tooMany } from '../../http/errors';
import type { RateLimiter } from '../../http/rate-limit';
import type { BearerTokenResolver } from '../../http/session';
import { caldavRoutes } from '../routes';
import { createFakeDavStore, type FakeDavStore } from './fake-store';

/** Sign-in limits in memory, as the database-backed limiter counts them. */
function memoryRateLimiter(): RateLimiter {
  const counts = new Map<string, number>();
  return {
    limit(name, { max }) {
      const key = (k: string) => `${name}:${k}`;
      return {
        async consume(k) {
          const used = (counts.get(key(k)) ?? 0) + 1;
          counts.set(key(k), used);
          if (used > max) throw tooMany(60);
          return max - used;
        },
        async check(k) {
          if ((counts.get(key(k)) ?? 0) >= max) throw tooMany(60);
        },
        async reset(k) {
          counts.delete(key(k));
        },
      };
    },
  };
}

export interface DavHarness {
  app: FastifyInstance;
  store: FakeDavStore;
  /** Adds a user and a token of theirs; answers the Basic header that signs in with it. */
  user(
    username: string,
    /** `id`: another token of that user. */
    options?: { write?: boolean; projectIds?: number[]; suspended?: boolean; id?: number },
  ): { id: number; authorization: string; token: string };
}

/** The CalDAV routes alone over a fake store, with tokens in memory and sign-in limits of `maxFailures`. */
export async function createDavHarness({ maxFailures = 1000 } = {}): Promise<DavHarness> {
  const store = createFakeDavStore();
  const tokens = new Map<string, Awaited<ReturnType<BearerTokenResolver['resolve']>>>();
  const app = Fastify();
  await caldavRoutes(app, {
    store,
    tokens: { resolve: async (token) => tokens.get(token) ?? null },
    loginGuard: createLoginGuard(memoryRateLimiter(), {
      perAccountAndAddress: { max: maxFailures, windowMs: 60_000 },
      perAddress: { max: maxFailures * 10, windowMs: 60_000 },
    }),
  });
  await app.ready();
  let nextId = 1;
  return {
    app,
    store,
    user(username, { write = true, projectIds, suspended = false, id = nextId++ } = {}) {
      const token = `tl_test${id}_${tokens.size}`;
      const user = { id, username, first_name: username, email: `${username}@example.com` } as UserRow;
      if (!suspended) {
        tokens.set(token, {
          user,
          idHash: `hash${id}`,
          limits: { userId: id, write, projectIds: projectIds ? new Set(projectIds) : null },
        });
      }
      const authorization = `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`;
      return { id, authorization, token };
    },
  };
}
