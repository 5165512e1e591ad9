import path from 'node:path';
import { z } from 'zod';
import { isTimeZone } from '../common/time-zone';
import { ianaTimeZone } from '../common/time-zone-names';

/**
 * The operations interface (DESIGN.md §3), parsed once at boot.
 * A bad value stops start-up with one line naming the variable.
 */
const port = z.coerce.number().int().min(0).max(65535);
const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalUrl = z
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));
const optionalString = z
  .string()
  .optional()
  .or(z.literal('').transform(() => undefined));

const envSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  APP_URL: optionalUrl,
  ADMIN_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .default('admin'),
  ADMIN_PASSWORD: z.string().min(4, 'must be at least 4 characters').optional(),
  ADMIN_EMAIL: z
    .email()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OPENAI_API_KEY: z
    .string()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OPENAI_BASE_URL: optionalUrl,
  AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  AI_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  AI_ALLOW_PRIVATE_BASE_URLS: flag.default(false),
  WEBHOOKS_ALLOW_PRIVATE: flag.default(false),
  AI_CONTEXT_CHARS: z.coerce.number().int().positive().default(20_000),
  AI_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  MAIL_FROM: z.string().min(3).default('Tasklane <no-reply@localhost>'),
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  SESSION_TTL_DAYS: z.coerce.number().positive().default(30),
  TRUST_PROXY: flag.default(false),
  AUTH_RATE_LIMIT_PER_IP: z.coerce.number().int().positive().default(30),
  AUTH_RATE_LIMIT_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FILE_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().positive().default(600),
  FILE_SWEEP_MIN_AGE_SECONDS: z.coerce.number().int().min(0).default(3600),
  JOBS_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  JOBS_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'must be an S3 bucket name (3-63 lower-case letters, digits, dots, dashes)',
    )
    .optional()
    .or(z.literal('').transform(() => undefined)),
  S3_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: flag.default(false),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()/-]*$/, "may hold only letters, digits and !_.*'()/-")
    .default(''),
  OIDC_ISSUER: z
    .url({ protocol: /^https$/, error: 'must be an https:// URL (the OpenID Connect issuer)' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_NAME: z
    .string()
    .trim()
    .max(40, 'must be at most 40 characters')
    .default('SSO')
    .transform((name) => name || 'SSO'),
  OIDC_AUTO_CREATE: flag.default(false),
  // Web Push (issue 22, decision 036): base64url, as `npx web-push generate-vapid-keys` prints them.
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{87}$/, 'must be a base64url P-256 public key (87 characters)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url P-256 private key (43 characters)')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  // Issue 28: the zone of every account whose person or browser has not set one.
  DEFAULT_TIME_ZONE: z
    .string()
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:\S+@\S+|https:\/\/\S+)$/, 'must be a mailto: address or an https:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
});

export type Config = ReturnType<typeof toConfig>;

/** Every variable the server reads: the README's configuration table documents each. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** One key without the other is a mistake, not a request for the SDK's default credentials. */
const checkedEnvSchema = envSchema.superRefine((env, context) => {
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    const missing = env.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID';
    context.addIssue({
      code: 'custom',
      path: [missing],
      message: 'must be set together with the other S3 key',
    });
  }
  if (Boolean(env.VAPID_PUBLIC_KEY) !== Boolean(env.VAPID_PRIVATE_KEY)) {
    const missing = env.VAPID_PUBLIC_KEY ? 'VAPID_PRIVATE_KEY' : 'VAPID_PUBLIC_KEY';
    context.addIssue({
      code: 'custom',
      path: [missing],
      message: 'must be set together with the other VAPID key',
    });
  }
  if (env.OIDC_ISSUER) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) {
      if (!env[name])
        context.addIssue({ code: 'custom', path: [name], message: 'is required when OIDC_ISSUER is set' });
    }
  }
});

/**
 * Who runs this server, for push services (RFC 8292 `sub`): VAPID_SUBJECT, else APP_URL when it is
 * https, else the address MAIL_FROM sends from.
 */
function vapidSubject(env: z.infer<typeof envSchema>, appUrl: string): string {
  if (env.VAPID_SUBJECT) return env.VAPID_SUBJECT;
  if (appUrl.startsWith('https://')) return appUrl;
  const address = /<([^>]+)>/.exec(env.MAIL_FROM)?.[1] ?? env.MAIL_FROM.trim();
  return `mailto:${address}`;
}

/** DEFAULT_TIME_ZONE, else the machine's zone (TZ or the system's), else UTC; under its IANA name. */
function defaultTimeZone(env: z.infer<typeof envSchema>): string {
  const machine = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zone = env.DEFAULT_TIME_ZONE ?? (isTimeZone(machine) ? machine : 'UTC');
  return ianaTimeZone(zone);
}

function toConfig(env: z.infer<typeof envSchema>) {
  const dataDir = path.resolve(env.DATA_DIR);
  const appUrl = (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    databaseUrl: env.DATABASE_URL,
    appUrl,
    admin: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD, email: env.ADMIN_EMAIL },
    ai: {
      apiKey: env.OPENAI_API_KEY,
      baseUrl: env.OPENAI_BASE_URL,
      model: env.AI_MODEL,
      timeoutMs: env.AI_TIMEOUT_MS,
      allowPrivateBaseUrls: env.AI_ALLOW_PRIVATE_BASE_URLS,
      /** At most this many characters of a task's attachments go to the model in one run. */
      contextChars: env.AI_CONTEXT_CHARS,
      secret: env.AI_SECRET,
    },
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    maxUploadBytes: env.MAX_UPLOAD_BYTES,
    /** How often stored files no row claims are removed, and how old they must be first. */
    fileSweep: {
      intervalMs: env.FILE_SWEEP_INTERVAL_SECONDS * 1000,
      minAgeMs: env.FILE_SWEEP_MIN_AGE_SECONDS * 1000,
    },
    /** How often each instance looks for due jobs (reminders, deliveries, digests). */
    jobs: { pollIntervalMs: env.JOBS_POLL_INTERVAL_MS, leaseMs: env.JOBS_LEASE_MS },
    /** Webhooks may go to loopback, private and link-local addresses (a receiver on the LAN). */
    webhooks: { allowPrivate: env.WEBHOOKS_ALLOW_PRIVATE },
    sessionTtlMs: env.SESSION_TTL_DAYS * 24 * 60 * 60 * 1000,
    trustProxy: env.TRUST_PROXY,
    /** Attempts at sign-in and the public forms per 15 minutes, per address and per account. */
    authRateLimit: {
      perIp: env.AUTH_RATE_LIMIT_PER_IP,
      perAccount: env.AUTH_RATE_LIMIT_PER_ACCOUNT,
      windowMs: 15 * 60 * 1000,
      /**
       * Wrong second-factor codes per account from any mix of addresses in that window (issue 20,
       * RFC 6238 §5.2): the per-address limits alone let many addresses guess codes without end.
       */
      wrongCodesPerAccount: 10,
    },
    logLevel: env.LOG_LEVEL,
    /** The time zone of an account until its person or their browser sets one (issue 28). */
    defaultTimeZone: defaultTimeZone(env),
    /** Files go to this bucket when S3_BUCKET is set, else under DATA_DIR/files. */
    s3: env.S3_BUCKET
      ? {
          bucket: env.S3_BUCKET,
          endpoint: env.S3_ENDPOINT,
          region: env.S3_REGION,
          accessKeyId: env.S3_ACCESS_KEY_ID,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY,
          forcePathStyle: env.S3_FORCE_PATH_STYLE,
          prefix: env.S3_PREFIX,
        }
      : undefined,
    /** Single sign-on through this OpenID Connect provider when OIDC_ISSUER is set (decision 016). */
    oidc: env.OIDC_ISSUER
      ? {
          issuer: env.OIDC_ISSUER,
          clientId: env.OIDC_CLIENT_ID as string,
          clientSecret: env.OIDC_CLIENT_SECRET as string,
          name: env.OIDC_NAME,
          autoCreate: env.OIDC_AUTO_CREATE,
        }
      : undefined,
    /**
     * Web Push's VAPID identity (decision 036). Without the keys, one pair is generated once and kept
     * in the database (src/server/push/keys.ts), so every instance signs with the same one.
     */
    push: {
      keys:
        env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY
          ? { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY }
          : undefined,
      subject: vapidSubject(env, appUrl),
    },
  };
}

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError whose message is one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = checkedEnvSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = issue.path.join('.');
    const reason = issue.message.startsWith(`${name} `)
      ? issue.message.slice(name.length + 1)
      : issue.message;
    throw new ConfigError(`Invalid configuration: ${name}=${JSON.stringify(env[name] ?? '')} ${reason}`);
  }
  return toConfig(result.data);
}
