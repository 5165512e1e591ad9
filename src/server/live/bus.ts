import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../db';

export interface LiveSubscriber {
  /** The user's data behind these query keys changed. */
  onEvent(queryKeys: string[]): void;
  /** Events may have been missed (the database connection dropped): the stream should start over. */
  onInterrupted(): void;
}

/**
 * Fan-out of "this user's data changed" to every open live-update stream of that user.
 * On PostgreSQL it goes through NOTIFY/LISTEN so every instance behind a proxy hears it;
 * on SQLite (one process per DATA_DIR) it stays in memory.
 */
export interface LiveBus {
  /** Fire and forget: a failure is logged, never thrown, so it cannot fail the change that caused it. */
  publish(userId: number, queryKeys: string[]): void;
  /** Resolves once events for the user will reach the subscriber; call the result to stop. */
  subscribe(userId: number, subscriber: LiveSubscriber): Promise<() => void>;
  close(): Promise<void>;
}

interface Transport {
  publish(userId: number, queryKeys: string[]): Promise<void>;
  /** Resolves when delivery is live. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createLiveBus(db: Db, logger: FastifyBaseLogger): LiveBus {
  const subscribers = new Map<number, Set<LiveSubscriber>>();
  const pending = new Set<Promise<void>>();

  const deliver = (userId: number, queryKeys: string[]) => {
    for (const subscriber of subscribers.get(userId) ?? []) subscriber.onEvent(queryKeys);
  };
  const interruptAll = () => {
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.onInterrupted();
  };
  const transport: Transport =
    db.dialect === 'postgres' && db.pgPool
      ? createPgTransport(db, db.pgPool, deliver, interruptAll, logger)
      : {
          publish: async (userId, queryKeys) => deliver(userId, queryKeys),
          ready: async () => {},
          close: async () => {},
        };

  return {
    publish(userId, queryKeys) {
      const sent = transport
        .publish(userId, queryKeys)
        .catch((error) => logger.warn({ err: error }, 'live update not published'))
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

    async close() {
      await Promise.all(pending);
      await transport.close();
      subscribers.clear();
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
  deliver: (userId: number, queryKeys: string[]) => void,
  interrupted: () => void,
  logger: FastifyBaseLogger,
): Transport {
  let channel: Promise<string> | undefined;
  let listening: Promise<pg.Client> | undefined;
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
    const client = new pg.Client(pool.options);
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost || closed) return;
      lost = true;
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
        const { u, k } = JSON.parse(message.payload) as { u: number; k: string[] };
        deliver(u, k);
      } catch (error) {
        logger.warn({ err: error }, 'live updates: unreadable notification');
      }
    });
    try {
      await client.connect();
      await client.query(`listen ${client.escapeIdentifier(name)}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  };

  return {
    async publish(userId, queryKeys) {
      const name = await channelName();
      const payload = JSON.stringify({ u: userId, k: queryKeys });
      await sql`select pg_notify(${name}, ${payload})`.execute(db.kysely);
    },

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
      const client = await listening?.catch(() => undefined);
      await client?.end().catch(() => {});
    },
  };
}
