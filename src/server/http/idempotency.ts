import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_LIMITS,
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../../common/offline';
import type { Database } from '../db/schema';
import { toIso } from '../db/values';
import type { Clock } from '../time/clock';
import { badRequest, HttpError } from './errors';

/**
 * `Idempotency-Key` on every POST, PATCH, PUT and DELETE under /api/ (issue 31): a write repeated
 * with the same key gets the first answer again instead of being done twice.
 *
 * The row is the lock. Before the handler runs, the request claims its key with an insert (primary
 * key user_id + key): the insert that wins runs the request, on whichever instance; a repeat finds
 * the row. Its answer is written into the row as it is sent (onSend), so a client that repeats at
 * once is already answered from it. Rows live in the database: they hold across instances and
 * restarts.
 *
 * - Keys are per person (the signed-in user, or the API token's owner). A request with no one signed
 *   in (signing in, signing up) runs as if it had no key: there is no one to key it by, and its
 *   answer may carry a session.
 * - A repeat with another method, path (query included) or body: 422. One while the first still
 *   runs: 409, and it does nothing. Otherwise the first answer's status, body and the headers worth
 *   repeating, with `Idempotent-Replayed: true`.
 * - A 5xx (or an error thrown) deletes the row: the client may try again with the same key. A 4xx is
 *   kept: a refusal stays a refusal.
 * - Not kept (the request runs, the key is dropped): an answer that is a stream or a file, sets a
 *   cookie (a session), or shows a secret once (route `config.showsSecret`); a multipart upload,
 *   whose body the handler reads itself, runs as if it had no key (its body cannot be compared).
 * - A key older than 24 hours counts as unused; the job queue's hourly prune deletes them.
 * - A row still in flight after IDEMPOTENCY_IN_FLIGHT_MS was left by an instance that died mid-way:
 *   a repeat takes it over and runs the request.
 *
 * Without the header a request costs one header lookup: no query, no hashing.
 */

/**
 * How long a request may run before its in-flight key counts as abandoned (its instance died).
 * Longer than any request runs (an AI run waits AI_TIMEOUT_MS, a minute by default, per call): a
 * shorter bound would let a repeat run a slow request a second time.
 */
export const IDEMPOTENCY_IN_FLIGHT_MS = 5 * 60_000;

/** The answer's headers a replay repeats; never Set-Cookie, nor those the send computes again. */
const REPEATED_HEADERS = [
  'content-type',
  'location',
  'etag',
  'last-modified',
  'content-language',
  'link',
  'retry-after',
] as const;

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const HEADER = IDEMPOTENCY_KEY_HEADER.toLowerCase();

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The answer shows a secret once (an API token, a signing secret, a feed's address): it is never
     * kept for a repeated Idempotency-Key, so it is not written to the database.
     */
    showsSecret?: boolean;
  }
}

/** What the OpenAPI document says of the header (http/openapi.ts adds it to every write operation). */
export const IDEMPOTENCY_OPENAPI = {
  methods: new Set(['post', 'patch', 'put', 'delete']),
  parameters: {
    IdempotencyKey: {
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description: [
        `Makes this write safe to send again (the IETF httpapi draft's header): 1-${IDEMPOTENCY_LIMITS.keyMaxLength} printable characters, unique per change, kept 24 hours per person.`,
        `The same key with the same method, path and body gets the first answer again (its status and body) with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, and nothing is done twice;`,
        'with another method, path or body it answers 422; while the first request still runs, 409 (try again shortly).',
        'A 5xx answer lets the key go, so the write may be tried again with it; a 4xx is kept.',
        'Ignored when no one is signed in, for multipart uploads, and for answers that show a secret once or set a cookie (those run again).',
      ].join(' '),
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: IDEMPOTENCY_LIMITS.keyMaxLength,
        pattern: '^[\\x20-\\x7E]+$',
      },
    },
  },
  parameter: { $ref: '#/components/parameters/IdempotencyKey' },
  responses: {
    IdempotencyInFlight: {
      description: `A request with this ${IDEMPOTENCY_KEY_HEADER} is still running: nothing was done; try again shortly.`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
    IdempotencyReused: {
      description: `This ${IDEMPOTENCY_KEY_HEADER} was used for another request (another method, path or body).`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  },
  operationResponses: {
    409: { $ref: '#/components/responses/IdempotencyInFlight' },
    422: { $ref: '#/components/responses/IdempotencyReused' },
  },
} as const;

export interface IdempotentRequest {
  userId: number;
  key: string;
  method: string;
  path: string;
  bodyHash: string;
}

/** The claim a request holds while it runs: the row it wrote, known by its created_at. */
export interface IdempotencyClaim {
  userId: number;
  key: string;
  createdAt: string;
}

export interface KeptAnswer {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

export type ClaimOutcome =
  | { kind: 'run'; claim: IdempotencyClaim }
  | { kind: 'replay'; answer: KeptAnswer }
  | { kind: 'inFlight' }
  | { kind: 'reused' };

export interface IdempotencyStore {
  /** Claims the key for this request, or says what a repeat gets. */
  claim(request: IdempotentRequest): Promise<ClaimOutcome>;
  /** Writes the answer into the claimed row (when the claim still holds). */
  keep(claim: IdempotencyClaim, answer: KeptAnswer): Promise<void>;
  /** Deletes the claimed row: the key is unused again. */
  release(claim: IdempotencyClaim): Promise<void>;
  /** Deletes the keys older than 24 hours; how many. */
  prune(): Promise<number>;
}

export function createIdempotencyStore(db: Kysely<Database>, clock: Clock): IdempotencyStore {
  const ours = (claim: IdempotencyClaim) =>
    db
      .updateTable('idempotency_keys')
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key)
      .where('created_at', '=', claim.createdAt);

  return {
    async claim(request) {
      const fresh = {
        method: request.method,
        path: request.path,
        body_hash: request.bodyHash,
        status: null,
        response_body: null,
        response_headers: null,
      };
      // A row can go (released, pruned) or be taken over between our insert and our read: look again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = clock.now();
        const createdAt = now.toISOString();
        const claim = { userId: request.userId, key: request.key, createdAt };
        const inserted = await db
          .insertInto('idempotency_keys')
          .values({ user_id: request.userId, key: request.key, ...fresh, created_at: createdAt })
          .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'run', claim };

        const row = await db
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('user_id', '=', request.userId)
          .where('key', '=', request.key)
          .executeTakeFirst();
        if (!row) continue;
        const was = toIso(row.created_at);
        const age = now.getTime() - Date.parse(was);
        const expired = age >= IDEMPOTENCY_LIMITS.ttlMs;
        const abandoned = row.status === null && age >= IDEMPOTENCY_IN_FLIGHT_MS;
        if (expired || abandoned) {
          // Only one taker: the update names the row as it was read.
          const taken = await db
            .updateTable('idempotency_keys')
            .set({ ...fresh, created_at: createdAt })
            .where('user_id', '=', request.userId)
            .where('key', '=', request.key)
            .where('created_at', '=', was)
            .executeTakeFirst();
          if (Number(taken.numUpdatedRows) === 1) return { kind: 'run', claim };
          continue;
        }
        if (
          row.method !== request.method ||
          row.path !== request.path ||
          row.body_hash !== request.bodyHash
        ) {
          return { kind: 'reused' };
        }
        if (row.status === null) return { kind: 'inFlight' };
        return {
          kind: 'replay',
          answer: {
            status: row.status,
            body: row.response_body,
            headers: row.response_headers ? (JSON.parse(row.response_headers) as Record<string, string>) : {},
          },
        };
      }
      return { kind: 'inFlight' };
    },

    async keep(claim, answer) {
      await ours(claim)
        .set({
          status: answer.status,
          response_body: answer.body,
          response_headers: JSON.stringify(answer.headers),
        })
        .where('status', 'is', null)
        .execute();
    },

    async release(claim) {
      await db
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', claim.userId)
        .where('key', '=', claim.key)
        .where('created_at', '=', claim.createdAt)
        .execute();
    },

    async prune() {
      const before = new Date(clock.now().getTime() - IDEMPOTENCY_LIMITS.ttlMs).toISOString();
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/** The body as the request sent it (parsed, before validation), hashed. */
function hashBody(body: unknown): string {
  const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
  return crypto.createHash('sha256').update(text).digest('hex');
}

const kClaim = Symbol('idempotencyClaim');
type ClaimedRequest = FastifyRequest & { [kClaim]?: IdempotencyClaim };

/** The key of a write under /api/, or undefined when there is none to honour. */
function keyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[HEADER];
  if (value === undefined) return undefined;
  if (!WRITE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw badRequest(IDEMPOTENCY_MESSAGES.invalid);
  return key;
}

function sendKept(reply: FastifyReply, answer: KeptAnswer) {
  reply.code(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  reply.send(answer.body ?? undefined);
}

/** The answer as it will be kept, or undefined when it is not kept (a stream, a file, a cookie). */
function keepable(reply: FastifyReply, payload: unknown): KeptAnswer | undefined {
  if (reply.hasHeader('set-cookie') || reply.request.routeOptions.config.showsSecret) return undefined;
  let body: string | null;
  if (payload === undefined || payload === null) body = null;
  else if (typeof payload === 'string') body = payload;
  else return undefined;
  const headers: Record<string, string> = {};
  for (const name of REPEATED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return { status: reply.statusCode, body, headers };
}

/**
 * Registers the hooks: after the session plugin (keys are per person), before the routes. The
 * claim is made at preValidation, once the body is read and before it is validated, so an invalid
 * body's 400 is kept like any refusal.
 */
export const idempotencyPlugin = fp<{ store: IdempotencyStore }>(
  async (app, { store }) => {
    /** Keeps the answer, or lets the key go (a 5xx, an answer not kept, none at all). */
    const settle = (request: ClaimedRequest, answer: KeptAnswer | undefined) => {
      const claim = request[kClaim];
      if (!claim) return undefined;
      request[kClaim] = undefined;
      const done = answer ? store.keep(claim, answer) : store.release(claim);
      return done.catch((error) =>
        request.log.error({ err: error, key: claim.key }, 'idempotency key not settled'),
      );
    };

    app.addHook('preValidation', (request: ClaimedRequest, reply, done) => {
      let key: string | undefined;
      try {
        key = keyOf(request);
      } catch (error) {
        done(error as Error);
        return;
      }
      const session = request.session;
      if (key === undefined || !session || request.is404) {
        done();
        return;
      }
      if (String(request.headers['content-type'] ?? '').startsWith('multipart/')) {
        done();
        return;
      }
      store
        .claim({
          userId: session.user.id,
          key,
          method: request.method,
          path: request.url,
          bodyHash: hashBody(request.body),
        })
        .then((outcome) => {
          switch (outcome.kind) {
            case 'run':
              request[kClaim] = outcome.claim;
              done();
              return;
            case 'replay':
              sendKept(reply, outcome.answer);
              return;
            case 'inFlight':
              done(new HttpError(409, IDEMPOTENCY_MESSAGES.inFlight, { 'Retry-After': '1' }));
              return;
            case 'reused':
              done(new HttpError(422, IDEMPOTENCY_MESSAGES.reused));
              return;
          }
        }, done);
    });

    app.addHook('onSend', (request: ClaimedRequest, reply, payload, done) => {
      if (!request[kClaim]) {
        done(null, payload);
        return;
      }
      const settled = settle(request, reply.statusCode < 500 ? keepable(reply, payload) : undefined);
      if (settled) settled.then(() => done(null, payload));
      else done(null, payload);
    });

    // An answer that never went through onSend (the reply was hijacked): its key is let go.
    app.addHook('onResponse', (request: ClaimedRequest, _reply, done) => {
      const settled = settle(request, undefined);
      if (settled) settled.then(() => done());
      else done();
    });
  },
  { name: 'idempotency', dependencies: ['session'] },
);
