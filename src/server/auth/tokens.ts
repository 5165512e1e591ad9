import crypto from 'node:crypto';

/** 256 random bits, URL-safe: session ids and reset tokens. */
export const newSecretToken = (): string => crypto.randomBytes(32).toString('base64url');

/** Only this hash is stored, so a database leak does not leak live sessions or links. */
export const hashToken = (token: string): string => crypto.createHash('sha256').update(token).digest('hex');
