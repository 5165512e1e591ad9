import type { FastifyBaseLogger } from 'fastify';
import type { UserRepository } from './auth/repository';
import type { AuthService } from './auth/service';
import type { SessionStore } from './auth/sessions';
import type { Config } from './config';
import type { Db } from './db';
import type { FileStore } from './files/store';
import type { RateLimiter } from './http/rate-limit';
import type { LiveBus } from './live/bus';
import type { Mailer } from './mail/mailer';
import type { TaskService } from './tasks/service';

/** What every feature's routes are given: built once in app.ts, no globals. */
export interface AppContext {
  config: Config;
  db: Db;
  logger: FastifyBaseLogger;
  mailer: Mailer;
  sessions: SessionStore;
  users: UserRepository;
  auth: AuthService;
  rateLimiter: RateLimiter;
  fileStore: FileStore;
  /** Tell the user's open pages which queries to refetch: `live.publish(userId, ['/api/tasks'])`. */
  live: LiveBus;
  tasks: TaskService;
}
