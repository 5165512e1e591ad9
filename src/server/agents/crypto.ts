import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Encrypts users' API keys at rest (AES-256-GCM); the stored form is base64 of iv | tag | ciphertext. */
export interface SecretBox {
  encrypt(plain: string): string;
  /** Undefined when the value was sealed with another secret or was tampered with. */
  decrypt(sealed: string): string | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
export const AI_KEY_BYTES = 32;
export const KEY_FILE_NAME = 'ai-secret.key';

/**
 * The key comes from AI_SECRET (hashed to 32 bytes) or, without it, from a random key file under
 * DATA_DIR created on first start, readable by this user only: the database alone (a backup, say)
 * then never reveals the keys.
 */
export function createSecretBox(options: { secret?: string; dataDir: string }): SecretBox {
  return secretBoxWithKey(loadAiKey(options));
}

/** The raw 32-byte key behind createSecretBox: an export carries it so an import can re-seal users' keys. */
export function loadAiKey(options: { secret?: string; dataDir: string }): Buffer {
  return options.secret
    ? crypto.createHash('sha256').update(options.secret, 'utf8').digest()
    : loadOrCreateKeyFile(path.join(options.dataDir, KEY_FILE_NAME));
}

/** A box around a raw key; refuses a key of the wrong length, which would otherwise fail every decrypt silently. */
export function secretBoxWithKey(key: Buffer): SecretBox {
  if (key.length !== AI_KEY_BYTES) throw new Error(`an AI key must be ${AI_KEY_BYTES} bytes`);
  return {
    encrypt(plain) {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
    },
    decrypt(sealed) {
      const data = Buffer.from(sealed, 'base64');
      if (data.length < IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
        decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([
          decipher.update(data.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

function loadOrCreateKeyFile(file: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    // 'wx' fails if the file exists, so two instances starting together never overwrite each other's key.
    fs.writeFileSync(file, crypto.randomBytes(AI_KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== AI_KEY_BYTES)
    throw new Error(`${file} does not hold a 32-byte key; remove it or set AI_SECRET.`);
  return key;
}
