import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

export interface VapidKeys {
  /** Base64url: an uncompressed P-256 point (65 bytes). */
  publicKey: string;
  /** Base64url: the 32-byte private scalar. */
  privateKey: string;
}

export interface StoredSubscription {
  id: number;
  userId: number;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** The one row of push_keys (migration 0017). */
const VAPID_ROW = 'vapid';

/** A fresh VAPID key pair (RFC 8292: ECDSA on P-256), base64url as web-push and browsers take it. */
export function generateVapidKeys(): VapidKeys {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  return {
    publicKey: Buffer.concat([Buffer.from([4]), x, y]).toString('base64url'),
    privateKey: jwk.d!,
  };
}

/** Queries for Web Push: the stored VAPID key pair and each user's subscriptions. */
export function createPushRepository(db: Kysely<Database>) {
  return {
    /**
     * The stored key pair, `candidate` stored first when there is none. Insert-if-absent then read:
     * two instances starting at once both end up with the row the first insert wrote.
     */
    async vapidKeys(candidate: () => VapidKeys, now: string): Promise<VapidKeys> {
      const stored = () =>
        db
          .selectFrom('push_keys')
          .select(['public_key', 'private_key'])
          .where('name', '=', VAPID_ROW)
          .executeTakeFirst();
      let row = await stored();
      if (!row) {
        const keys = candidate();
        await db
          .insertInto('push_keys')
          .values({
            name: VAPID_ROW,
            public_key: keys.publicKey,
            private_key: keys.privateKey,
            created_at: now,
          })
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
        row = await stored();
      }
      if (!row) throw new Error('The VAPID key pair could not be stored');
      return { publicKey: row.public_key, privateKey: row.private_key };
    },

    /** One row per endpoint: a browser that subscribes again (or for another person) takes it over. */
    upsert: (
      userId: number,
      subscription: { endpoint: string; p256dh: string; auth: string },
      now: string,
    ): Promise<unknown> =>
      db
        .insertInto('push_subscriptions')
        .values({ user_id: userId, ...subscription, created_at: now })
        .onConflict((oc) =>
          oc.column('endpoint').doUpdateSet({
            user_id: userId,
            p256dh: subscription.p256dh,
            auth: subscription.auth,
            created_at: now,
          }),
        )
        .execute(),

    /** Removes the caller's own subscription with this endpoint; another person's stays. */
    remove: (userId: number, endpoint: string): Promise<unknown> =>
      db
        .deleteFrom('push_subscriptions')
        .where('endpoint', '=', endpoint)
        .where('user_id', '=', userId)
        .execute(),

    /** Removes the row a push service said is gone (by id: a browser may have subscribed again since). */
    removeGone: (id: number, endpoint: string): Promise<unknown> =>
      db.deleteFrom('push_subscriptions').where('id', '=', id).where('endpoint', '=', endpoint).execute(),

    list: async (userId: number): Promise<StoredSubscription[]> =>
      (
        await db
          .selectFrom('push_subscriptions')
          .select(['id', 'user_id', 'endpoint', 'p256dh', 'auth'])
          .where('user_id', '=', userId)
          .orderBy('id')
          .execute()
      ).map((row) => ({
        id: row.id,
        userId: row.user_id,
        endpoint: row.endpoint,
        p256dh: row.p256dh,
        auth: row.auth,
      })),
  };
}

export type PushRepository = ReturnType<typeof createPushRepository>;
