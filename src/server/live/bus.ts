import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type pg from 'pg';
import { type Db, loadPg } from '../db';

export interface LiveSubscriber {
  /**
   * The user's data behind these query keys changed; in these projects, when the change was in
   * some (a stream of a token limited to other projects skips it).
   */
  onEvent(queryKeys: string[], projectIds?: readonly number[]): void;
  /** Events may have been missed (the database connection dropped): the stream should start over. */
  onInterrupted(): void;
  /** A message with data of its own for this user (the unread count: src/common/notifications.ts). */
  onMessage?(message: LiveMessage): void;
}

/** What the stream carries besides `{invalidate}`: small JSON addressed to one user. */
export type LiveMessage = { type: string } & Record<string, unknown>;

/**
 * What an instance's caches must forget (the session cache, src/server/auth/session-cache.ts): a
 * user's sessions and user row, one session by the hash of its id, or everything.
 */
export type Invalidation =
  | { userId: number }
  | { idHash: string }
  | { all: true }
  /** These projects' tasks or members changed (the task lists' scope cache, access/scope-cache.ts). */
  | { projects: number[] };

/**
 * Fan-out of "this user's data changed" to every open live-update stream of that user.
 * On PostgreSQL it goes through NOTIFY/LISTEN so every instance behind a proxy hears it;
 * on SQLite (one process per DATA_DIR) it stays in memory.
 */
export interface LiveBus {
  /**
   * Tells one user's streams, or several users' (a project's members: one message for them all).
   * Fire and forget: a failure is logged, never thrown, so it cannot fail the change that caused it.
   * `projectIds` names the projects the change was in, when it was in some.
   */
  publish(userIds: number | readonly number[], queryKeys: string[], projectIds?: readonly number[]): void;
  /** Sends a message of its own to one user's streams, on every instance; fire and forget like publish. */
  message(userId: number, message: LiveMessage): void;
  /** Resolves once events for the user will reach the subscriber; call the result to stop. */
  subscribe(userId: number, subscriber: LiveSubscriber): Promise<() => void>;
  /**
   * Tells every instance's caches to forget something: this instance's at once, the others' through
   * the database (NOTIFY on PostgreSQL) before it resolves. It never throws: a failure is logged.
   */
  invalidate(message: Invalidation): Promise<void>;
  /**
   * `listener` hears every invalidation, from any instance; `connected()` says whether the other
   * instances' reach this one now (starting to listen when it does not). When it is false, or has
   * been since a value was cached, the cache must not be trusted: on a lost connection the listener
   * hears `{all: true}`.
   */
  onInvalidate(listener: (message: Invalidation) => void): { connected(): boolean };
  close(): Promise<void>;
}

interface Transport {
  publish(userIds: readonly number[], queryKeys: string[], projectIds?: readonly number[]): Promise<void>;
  message(userId: number, message: LiveMessage): Promise<void>;
  /** Sends an invalidation to the other instances (and, harmlessly, to this one again). */
  invalidate(message: Invalidation): Promise<void>;
  /** Resolves when delivery is live. */
  ready(): Promise<void>;
  /** Whether delivery is live now. */
  live(): boolean;
  close(): Promise<void>;
}

export function createLiveBus(db: Db, logger: FastifyBaseLogger): LiveBus {
  const subscribers = new Map<number, Set<LiveSubscriber>>();
  const pending = new Set<Promise<void>>();
  const invalidationListeners = new Set<(message: Invalidation) => void>();

  const deliver = (userIds: readonly number[], queryKeys: string[], projectIds?: readonly number[]) => {
    for (const userId of userIds) {
      for (const subscriber of subscribers.get(userId) ?? []) subscriber.onEvent(queryKeys, projectIds);
    }
  };
  const deliverMessage = (userId: number, message: LiveMessage) => {
    for (const subscriber of subscribers.get(userId) ?? []) subscriber.onMessage?.(message);
  };
  const forget = (message: Invalidation) => {
    for (const listener of invalidationListeners) listener(message);
  };
  const interruptAll = () => {
    forget({ all: true });
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.onInterrupted();
  };
  const transport: Transport =
    db.dialect === 'postgres' && db.pgPool
      ? createPgTransport(
          db,
          db.pgPool,
          { deliver, deliverMessage, forget, interrupted: interruptAll },
          logger,
        )
      : {
          // One process per DATA_DIR: nobody else to tell.
          publish: async (userIds, queryKeys, projectIds) => deliver(userIds, queryKeys, projectIds),
          message: async (userId, message) => deliverMessage(userId, message),
          invalidate: async () => {},
          ready: async () => {},
          live: () => true,
          close: async () => {},
        };

  return {
    publish(userIds, queryKeys, projectIds) {
      const users = typeof userIds === 'number' ? [userIds] : userIds;
      if (users.length === 0) return;
      const sent = transport
        .publish(users, queryKeys, projectIds)
        .catch((error) => logger.warn({ err: error }, 'live update not published'))
        .finally(() => pending.delete(sent));
      pending.add(sent);
    },

    message(userId, message) {
      const sent = transport
        .message(userId, message)
        .catch((error) => logger.warn({ err: error }, 'live message not published'))
        .finally(() => pending.delete(sent));
      pending.add(sent);
    },

    async subscribe(userId, subscriber) {
      await transport.ready();
      const set = subscribers.get(userId) ?? new Set();
      subscribers.set(userId, set);
      set.add(subscriber);
      return () => {
        set.delete(subscriber);
        if (set.size === 0 && subscribers.get(userId) === set) subscribers.delete(userId);
      };
    },

    async invalidate(message) {
      forget(message);
      await transport
        .invalidate(message)
        .catch((error) => logger.warn({ err: error }, 'cache invalidation not published'));
    },

    onInvalidate(listener) {
      invalidationListeners.add(listener);
      return {
        connected: () => {
          if (transport.live()) return true;
          transport.ready().catch(() => {});
          return false;
        },
      };
    },

    async close() {
      await Promise.all(pending);
      await transport.close();
      subscribers.clear();
      invalidationListeners.clear();
    },
  };
}

/** PostgreSQL identifiers (channel names) hold at most 63 bytes. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * One channel per schema, so apps on different schemas of one database (the tests' isolation)
 * never hear each other; one dedicated LISTEN connection per app instance, opened on first use.
 */
function createPgTransport(
  db: Db,
  pool: pg.Pool,
  handlers: {
    deliver: (userIds: readonly number[], queryKeys: string[], projectIds?: readonly number[]) => void;
    deliverMessage: (userId: number, message: LiveMessage) => void;
    forget: (message: Invalidation) => void;
    interrupted: () => void;
  },
  logger: FastifyBaseLogger,
): Transport {
  const { deliver, deliverMessage, forget, interrupted } = handlers;
  let channel: Promise<string> | undefined;
  let listening: Promise<pg.Client> | undefined;
  let live = false;
  let closed = false;

  const channelName = () => {
    channel ??= sql<{ schema: string }>`select current_schema() as schema`
      .execute(db.kysely)
      .then(({ rows }) => {
        const name = `tasklane_events_${rows[0]?.schema ?? 'public'}`;
        return Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES
          ? name
          : `tasklane_events_${crypto.createHash('sha256').update(name).digest('hex').slice(0, 40)}`;
      });
    channel.catch(() => {
      channel = undefined;
    });
    return channel;
  };

  const listen = async (): Promise<pg.Client> => {
    const name = await channelName();
    const { Client } = await loadPg();
    const client = new Client(pool.options);
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost || closed) return;
      lost = true;
      live = false;
      listening = undefined;
      logger.warn({ err: error }, 'live updates: LISTEN connection lost');
      client.end().catch(() => {});
      interrupted();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel !== name || !message.payload) return;
      try {
        // {u, k, p?}: these users' data changed (u one id, or several: a project's members), in
        // projects p; {i}: an invalidation.
        const { u, k, p, i, m } = JSON.parse(message.payload) as {
          u?: number | number[];
          k?: string[];
          p?: number[];
          i?: Invalidation;
          m?: LiveMessage;
        };
        if (i) forget(i);
        else if (m && typeof u === 'number') deliverMessage(u, m);
        else if (u !== undefined && k) deliver(typeof u === 'number' ? [u] : u, k, p);
      } catch (error) {
        logger.warn({ err: error }, 'live updates: unreadable notification');
      }
    });
    try {
      await client.connect();
      await client.query(`listen ${client.escapeIdentifier(name)}`);
      live = !lost;
    } catch (error) {
      lost = true;
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  };

  return {
    async publish(userIds, queryKeys, projectIds) {
      const name = await channelName();
      const payload = JSON.stringify({ u: userIds, k: queryKeys, ...(projectIds ? { p: projectIds } : {}) });
      await sql`select pg_notify(${name}, ${payload})`.execute(db.kysely);
    },

    async invalidate(message) {
      const name = await channelName();
      await sql`select pg_notify(${name}, ${JSON.stringify({ i: message })})`.execute(db.kysely);
    },

    async message(userId, message) {
      const name = await channelName();
      await sql`select pg_notify(${name}, ${JSON.stringify({ u: userId, m: message })})`.execute(db.kysely);
    },

    live: () => live && !closed,

    async ready() {
      if (closed) throw new Error('live updates are closed');
      listening ??= listen();
      try {
        await listening;
      } catch (error) {
        listening = undefined;
        throw error;
      }
    },

    async close() {
      closed = true;
      live = false;
      const client = await listening?.catch(() => undefined);
      await client?.end().catch(() => {});
    },
  };
}
