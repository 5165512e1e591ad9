import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/** scrypt, N=2^16 (64 MiB, ~0.1 s here): between OWASP's floor (2^15) and its default (2^17). Parameters travel with the hash. */
const PARAMS = { N: 2 ** 16, r: 8, p: 1, keylen: 32 };
const maxmem = 256 * 1024 * 1024;

/** `cost` (scrypt's N) is for test fixtures only, where hundreds of accounts are made and signed in. */
export async function hashPassword(password: string, cost: number = PARAMS.N): Promise<string> {
  const salt = crypto.randomBytes(16);
  const params = { ...PARAMS, N: cost };
  const key = await scrypt(password.normalize('NFKC'), salt, params.keylen, { ...params, maxmem });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem,
  });
  return crypto.timingSafeEqual(key, expected);
}

/** A hash of nothing, checked against when the username is unknown, so timing reveals no accounts. */
let dummyHash: Promise<string> | undefined;
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummyHash);
  return false;
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A random password for new accounts and invites: 16 characters, no look-alikes (~93 bits). */
export function generatePassword(length = 16): string {
  let out = '';
  while (out.length < length) {
    const byte = crypto.randomBytes(1)[0]!;
    // Rejection sampling keeps every character equally likely.
    if (byte < 256 - (256 % ALPHABET.length)) out += ALPHABET[byte % ALPHABET.length];
  }
  return out;
}
