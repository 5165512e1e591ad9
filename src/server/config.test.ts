import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('has working defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.appUrl).toBe('http://localhost:3000');
    expect(config.admin.username).toBe('admin');
    expect(config.maxUploadBytes).toBe(25 * 1024 * 1024);
    expect(config.mail.from).toBe('Tasklane <no-reply@localhost>');
    expect(config.ai.contextChars).toBe(20_000);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ APP_URL: 'not a url' }, 'APP_URL'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ MAX_UPLOAD_BYTES: '-5' }, 'MAX_UPLOAD_BYTES'],
    [{ AI_CONTEXT_CHARS: '0' }, 'AI_CONTEXT_CHARS'],
    [{ AI_CONTEXT_CHARS: '1.5' }, 'AI_CONTEXT_CHARS'],
    [{ ADMIN_PASSWORD: 'abc' }, 'ADMIN_PASSWORD'],
    [{ S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET'],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
    [{ S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE'],
    [{ S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'key' }, 'S3_SECRET_ACCESS_KEY'],
    [{ S3_BUCKET: 'files', S3_SECRET_ACCESS_KEY: 'secret' }, 'S3_ACCESS_KEY_ID'],
    [{ OIDC_ISSUER: 'http://id.example.com', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' }, 'OIDC_ISSUER'],
    [{ OIDC_ISSUER: 'not a url', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' }, 'OIDC_ISSUER'],
    [{ OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_SECRET: 'b' }, 'OIDC_CLIENT_ID'],
    [{ OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'a' }, 'OIDC_CLIENT_SECRET'],
    [{ OIDC_AUTO_CREATE: 'sometimes' }, 'OIDC_AUTO_CREATE'],
    [{ OIDC_NAME: 'x'.repeat(41) }, 'OIDC_NAME'],
    [{ VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: 'p'.repeat(43) }, 'VAPID_PUBLIC_KEY'],
    [{ VAPID_PUBLIC_KEY: 'B'.repeat(87), VAPID_PRIVATE_KEY: 'p+'.repeat(22) }, 'VAPID_PRIVATE_KEY'],
    [{ VAPID_PUBLIC_KEY: 'B'.repeat(87) }, 'VAPID_PRIVATE_KEY'],
    [{ VAPID_PRIVATE_KEY: 'p'.repeat(43) }, 'VAPID_PUBLIC_KEY'],
    [{ VAPID_SUBJECT: 'http://tasks.example.com' }, 'VAPID_SUBJECT'],
    [{ DEFAULT_TIME_ZONE: 'Mars/Olympus' }, 'DEFAULT_TIME_ZONE'],
  ])('stops on %o with one line naming %s', (env, name) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });

  it("reads DEFAULT_TIME_ZONE under its IANA name, else the machine's zone (issue 28)", () => {
    expect(loadConfig({ DEFAULT_TIME_ZONE: 'asia/calcutta' }).defaultTimeZone).toBe('Asia/Kolkata');
    expect(loadConfig({ DEFAULT_TIME_ZONE: 'Europe/Kyiv' }).defaultTimeZone).toBe('Europe/Kyiv');
    expect(loadConfig({}).defaultTimeZone).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(() => loadConfig({ DEFAULT_TIME_ZONE: 'Nowhere/Land' })).toThrow(
      'Invalid configuration: DEFAULT_TIME_ZONE="Nowhere/Land" must be an IANA time zone such as Europe/Berlin',
    );
  });

  it('keeps files on disk unless S3_BUCKET is set, then reads every S3 setting', () => {
    expect(loadConfig({}).s3).toBeUndefined();
    expect(loadConfig({ S3_BUCKET: 'tasklane' }).s3).toEqual({
      bucket: 'tasklane',
      endpoint: undefined,
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: false,
      prefix: '',
    });
    expect(
      loadConfig({
        S3_BUCKET: 'tasklane',
        S3_ENDPOINT: 'http://minio:9000',
        S3_REGION: 'eu-central-1',
        S3_ACCESS_KEY_ID: 'key',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PREFIX: 'prod/',
      }).s3,
    ).toEqual({
      bucket: 'tasklane',
      endpoint: 'http://minio:9000',
      region: 'eu-central-1',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      prefix: 'prod/',
    });
  });

  it('turns single sign-on on only with OIDC_ISSUER, naming the button SSO by default', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(loadConfig({ OIDC_CLIENT_ID: 'tasklane', OIDC_NAME: 'Acme' }).oidc).toBeUndefined();
    expect(
      loadConfig({
        OIDC_ISSUER: 'https://id.example.com/realms/acme',
        OIDC_CLIENT_ID: 'tasklane',
        OIDC_CLIENT_SECRET: 'secret',
      }).oidc,
    ).toEqual({
      issuer: 'https://id.example.com/realms/acme',
      clientId: 'tasklane',
      clientSecret: 'secret',
      name: 'SSO',
      autoCreate: false,
    });
    expect(
      loadConfig({
        OIDC_ISSUER: 'https://id.example.com',
        OIDC_CLIENT_ID: 'tasklane',
        OIDC_CLIENT_SECRET: 'secret',
        OIDC_NAME: 'Acme ID',
        OIDC_AUTO_CREATE: 'true',
      }).oidc,
    ).toMatchObject({ name: 'Acme ID', autoCreate: true });
    expect(
      loadConfig({
        OIDC_ISSUER: 'https://id.example.com',
        OIDC_CLIENT_ID: 'a',
        OIDC_CLIENT_SECRET: 'b',
        OIDC_NAME: '',
      }).oidc?.name,
    ).toBe('SSO');
  });

  it('takes the VAPID keys from the environment, or leaves them to the database; names a subject', () => {
    expect(loadConfig({}).push).toEqual({ keys: undefined, subject: 'mailto:no-reply@localhost' });
    expect(loadConfig({ APP_URL: 'https://tasks.example.com' }).push.subject).toBe(
      'https://tasks.example.com',
    );
    expect(loadConfig({ MAIL_FROM: 'ops@example.com' }).push.subject).toBe('mailto:ops@example.com');
    const keys = { publicKey: `B${'a'.repeat(86)}`, privateKey: 'k'.repeat(43) };
    expect(
      loadConfig({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: keys.privateKey,
        VAPID_SUBJECT: 'mailto:ops@example.com',
      }).push,
    ).toEqual({ keys, subject: 'mailto:ops@example.com' });
  });

  it('derives APP_URL from PORT and trims a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).appUrl).toBe('http://localhost:8080');
    expect(loadConfig({ APP_URL: 'https://tasks.example.com/' }).appUrl).toBe('https://tasks.example.com');
  });
});
