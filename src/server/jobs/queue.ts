import { AsyncResource } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../db';
import type { Database } from '../db/schema';
import { toIso } from '../db/values';
import type { Clock } from '../time/clock';

/**
 * Jobs in the database (decision 034): every instance polls the same table and each due job is
 * claimed by exactly one, with a lease. PostgreSQL claims with `FOR UPDATE SKIP LOCKED`, so pollers
 * never wait on each other; SQLite has one process and one writer, so the claiming UPDATE is atomic
 * as it is. A claim that is never finished (the instance died) is claimed again once its lease has
 * passed; a job's work and its completion are one transaction, so a retried job repeats nothing
 * that was recorded.
 */

export const JOB_DEFAULTS = {
  /** How long a claim holds before another instance may take the job. */
  leaseMs: 2 * 60_000,
  /** Tries, the first included. */
  maxAttempts: 5,
  /** The first retry waits this long; each later one twice the one before. */
  retryBaseMs: 30_000,
  /** Jobs one instance runs at once, at most (more than one only while some are slow). */
  lanes: 4,
  /** A job running this long is slow: another lane takes the next ones. */
  slowJobMs: 1000,
  /** Jobs claimed at once by `claimOnly` (tests). */
  batch: 20,
  /** Finished jobs are kept this long (their keys keep repeats out), then removed. */
  keepFinishedMs: 30 * 24 * 60 * 60_000,
  /** How often an instance removes them. */
  pruneEveryMs: 60 * 60_000,
} as const;

export interface NewJob {
  /** Unique across all jobs ever: a job with the same key is never enqueued again. */
  key: string;
  kind: string;
  payload: unknown;
  /** When it is due; now when absent. */
  runAt?: Date;
  maxAttempts?: number;
}

export interface ClaimedJob<P = unknown> {
  id: number;
  key: string;
  kind: string;
  payload: P;
  /** This claim's try, from 1. */
  attempt: number;
  runAt: string;
}

export interface JobRun {
  /**
   * Finishes the job in one transaction with what it records (`work`), only while this claim still
   * holds: when the lease has passed and another instance took the job, nothing is written and
   * LeaseLostError is thrown. A handler that never calls it is finished after it returns.
   */
  complete<T>(work?: (trx: Transaction<Database>) => Promise<T>): Promise<T | undefined>;
}

export type JobHandler = (job: ClaimedJob, run: JobRun) => Promise<void>;

export interface JobKindOptions {
  /**
   * Waits before each retry of this kind, the first retry's first; the last repeats for any later
   * one. Without it: retryBaseMs × 2^(try − 1).
   */
  retryDelaysMs?: readonly number[];
}

export class LeaseLostError extends Error {
  constructor(key: string) {
    super(`job ${key}: its lease passed and another instance took it`);
  }
}

export interface JobQueueOptions {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  logger: FastifyBaseLogger;
  pollIntervalMs: number;
  leaseMs?: number;
  retryBaseMs?: number;
  /** Runs at the start of every pass, before jobs are claimed (the digest's sweep enqueues there). */
  beforeEachPass?: () => Promise<void>;
  /** Other rows past their time, deleted with the finished jobs, every pruneEveryMs (idempotency keys). */
  alsoPrune?: ReadonlyArray<() => Promise<unknown>>;
}

export interface JobQueue {
  register(kind: string, handler: JobHandler, options?: JobKindOptions): void;
  /** Enqueues, skipping any whose key exists already; in the caller's transaction when given. */
  enqueue(jobs: NewJob[], trx?: Kysely<Database>): Promise<number>;
  /** Claims and runs every job due now (by the clock), until none is left; resolves when done. */
  runDue(): Promise<number>;
  /** A pass soon, in the background (something was just enqueued). */
  wake(): void;
  /** Polls every pollIntervalMs (a first pass at once: what fell due while no instance ran). */
  start(): void;
  /** Stops polling and waits for the pass under way. */
  stop(): Promise<void>;
  /** Tests: claims due jobs without running them, as an instance that dies at once would. */
  claimOnly(limit?: number): Promise<ClaimedJob[]>;
}

export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { db, dialect, clock, logger } = options;
  const leaseMs = options.leaseMs ?? JOB_DEFAULTS.leaseMs;
  const retryBaseMs = options.retryBaseMs ?? JOB_DEFAULTS.retryBaseMs;
  const handlers = new Map<string, JobHandler>();
  const kindOptions = new Map<string, JobKindOptions>();
  let chain: Promise<number> = Promise.resolve(0);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let woken = false;

  const nowIso = () => clock.now().toISOString();

  async function claim(limit: number): Promise<Array<ClaimedJob & { token: string }>> {
    const now = nowIso();
    const token = crypto.randomUUID();
    const lease = new Date(clock.now().getTime() + leaseMs).toISOString();
    // A job whose tries are spent and whose last claim lapsed (its instance died) is failed.
    await db
      .updateTable('jobs')
      .set({ state: 'failed', finished_at: now, locked_until: null, locked_by: null })
      .where('state', '=', 'pending')
      .whereRef('attempts', '>=', 'max_attempts')
      .where('locked_until', '<=', now)
      .execute();
    let due = db
      .selectFrom('jobs')
      .select('id')
      .where('state', '=', 'pending')
      .where('run_at', '<=', now)
      .whereRef('attempts', '<', 'max_attempts')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('run_at')
      .orderBy('id')
      .limit(limit);
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    const rows = await db
      .updateTable('jobs')
      .set((eb) => ({ locked_until: lease, locked_by: token, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', due)
      .returning(['id', 'key', 'kind', 'payload', 'attempts', 'run_at'])
      .execute();
    return rows
      .sort((a, b) => a.id - b.id)
      .map((row) => ({
        id: row.id,
        key: row.key,
        kind: row.kind,
        payload: JSON.parse(row.payload),
        attempt: row.attempts,
        runAt: toIso(row.run_at),
        token,
      }));
  }

  /** Marks the job done when this claim still holds it; false when it does not. */
  async function finish(trx: Kysely<Database>, id: number, token: string): Promise<boolean> {
    const result = await trx
      .updateTable('jobs')
      .set({ state: 'done', finished_at: nowIso(), locked_until: null, locked_by: null, last_error: null })
      .where('id', '=', id)
      .where('locked_by', '=', token)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async function fail(job: ClaimedJob & { token: string }, error: unknown, maxAttempts: number) {
    const message = error instanceof Error ? error.message : String(error);
    const last = job.attempt >= maxAttempts;
    const delays = kindOptions.get(job.kind)?.retryDelaysMs;
    const delay = delays?.length
      ? delays[Math.min(job.attempt, delays.length) - 1]!
      : retryBaseMs * 2 ** (job.attempt - 1);
    const retryAt = new Date(clock.now().getTime() + delay).toISOString();
    await db
      .updateTable('jobs')
      .set({
        state: last ? 'failed' : 'pending',
        run_at: last ? undefined : retryAt,
        finished_at: last ? nowIso() : undefined,
        locked_until: null,
        locked_by: null,
        last_error: message.slice(0, 2000),
      })
      .where('id', '=', job.id)
      .where('locked_by', '=', job.token)
      .execute();
    if (last) {
      logger.error({ err: error, job: job.key, attempt: job.attempt }, 'job failed for good: no tries left');
    } else {
      logger.warn({ err: error, job: job.key, attempt: job.attempt, retryAt }, 'job failed: will retry');
    }
  }

  async function runOne(job: ClaimedJob & { token: string }) {
    const handler = handlers.get(job.kind);
    let completed = false;
    const run: JobRun = {
      async complete(work) {
        let answer: Awaited<ReturnType<NonNullable<typeof work>>> | undefined;
        await db.transaction().execute(async (trx) => {
          answer = work ? await work(trx) : undefined;
          if (!(await finish(trx, job.id, job.token))) throw new LeaseLostError(job.key);
        });
        completed = true;
        return answer;
      },
    };
    try {
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      await handler(job, run);
      if (!completed) await run.complete();
    } catch (error) {
      if (error instanceof LeaseLostError) {
        logger.warn({ job: job.key }, error.message);
        return;
      }
      const row = await db
        .selectFrom('jobs')
        .select('max_attempts')
        .where('id', '=', job.id)
        .executeTakeFirst();
      await fail(job, error, row?.max_attempts ?? JOB_DEFAULTS.maxAttempts).catch((failure) =>
        logger.error({ err: failure, job: job.key }, 'could not record a job failure'),
      );
    }
  }

  let prunedAt = Number.NEGATIVE_INFINITY;
  async function prune() {
    const now = clock.now().getTime();
    if (now - prunedAt < JOB_DEFAULTS.pruneEveryMs) return;
    prunedAt = now;
    await db
      .deleteFrom('jobs')
      .where('state', 'in', ['done', 'failed'])
      .where('finished_at', '<', new Date(now - JOB_DEFAULTS.keepFinishedMs).toISOString())
      .execute();
    for (const more of options.alsoPrune ?? []) await more();
  }

  /**
   * The lanes running jobs: one, taking one due job at a time in order, until a job is slow; then a
   * spare lane goes on with the others (up to JOB_DEFAULTS.lanes), so a slow webhook receiver or
   * mail server holds nothing else back. A job is claimed only as it starts: a claim never ages
   * while other jobs run (a lease outlived would let another instance run the job again).
   */
  const lanes = new Set<Promise<void>>();
  /** Lanes whose current job has run past slowJobMs. */
  let slowLanes = 0;
  let ran = 0;
  const lane = async () => {
    for (;;) {
      const [job] = await claim(1);
      if (!job) return;
      let slow = false;
      const spare = setTimeout(() => {
        slow = true;
        slowLanes += 1;
        addLane();
      }, JOB_DEFAULTS.slowJobMs);
      spare.unref();
      try {
        await runOne(job);
      } finally {
        clearTimeout(spare);
        if (slow) slowLanes -= 1;
      }
      ran += 1;
    }
  };
  function addLane() {
    if (lanes.size >= JOB_DEFAULTS.lanes) return;
    const running: Promise<void> = lane()
      .catch((error) => logger.warn({ err: error }, 'job lane failed'))
      .finally(() => lanes.delete(running));
    lanes.add(running);
  }
  /** A lane for what is due, unless one that is not stuck on a slow job will come to it. */
  function fill() {
    if (lanes.size === slowLanes) addLane();
  }
  /** Until every lane has run out of due jobs. */
  async function lanesSettled() {
    while (lanes.size > 0) await Promise.all(lanes);
  }
  let passing = false;

  async function pass(): Promise<number> {
    passing = true;
    try {
      await prune();
      await options.beforeEachPass?.();
      const before = ran;
      fill();
      await lanesSettled();
      return ran - before;
    } finally {
      passing = false;
    }
  }

  /** One pass at a time per instance; a pass asked for during one runs after it. */
  const queuePass = () => {
    const next = chain.catch(() => 0).then(pass);
    chain = next.catch(() => 0);
    return next;
  };

  /** A pass now, and any queued during it (a wake from inside it), so the queue is settled after. */
  const runDue = async () => {
    const count = await queuePass();
    let tail: Promise<number>;
    do {
      tail = chain;
      await tail;
      await lanesSettled();
    } while (tail !== chain);
    return count;
  };

  /**
   * A pass in the context the queue was made in, not in the request that woke it: jobs must not
   * inherit that request's API token limits (decision 042).
   */
  const passOutsideRequests = AsyncResource.bind(pass);
  const fillOutsideRequests = AsyncResource.bind(fill);

  const background = () => {
    if (stopped) return;
    queuePass().catch((error) => logger.warn({ err: error }, 'job poll failed'));
  };

  return {
    register(kind, handler, options) {
      handlers.set(kind, handler);
      if (options) kindOptions.set(kind, options);
    },

    async enqueue(jobs, trx = db) {
      if (jobs.length === 0) return 0;
      const now = nowIso();
      const result = await trx
        .insertInto('jobs')
        .values(
          jobs.map((job) => ({
            key: job.key,
            kind: job.kind,
            payload: JSON.stringify(job.payload),
            state: 'pending' as const,
            run_at: (job.runAt ?? clock.now()).toISOString(),
            max_attempts: job.maxAttempts ?? JOB_DEFAULTS.maxAttempts,
            created_at: now,
          })),
        )
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0);
    },

    runDue,

    wake() {
      if (stopped) return;
      // During a pass, idle lanes join it: a job enqueued now does not wait for a slow one to end.
      if (passing) {
        fillOutsideRequests();
        return;
      }
      // Queued now (not at the next tick), so a runDue() called after this waits for it.
      if (woken) return;
      woken = true;
      const next = chain
        .catch(() => 0)
        .then(() => {
          woken = false;
          return passOutsideRequests();
        });
      chain = next.catch(() => 0);
      next.catch((error) => logger.warn({ err: error }, 'job pass failed'));
    },

    start() {
      if (timer || stopped) return;
      background();
      timer = setInterval(background, options.pollIntervalMs);
      timer.unref();
    },

    async stop() {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
      await chain.catch(() => 0);
      await lanesSettled();
    },

    async claimOnly(limit = JOB_DEFAULTS.batch) {
      return (await claim(limit)).map(({ token: _token, ...job }) => job);
    },
  };
}
