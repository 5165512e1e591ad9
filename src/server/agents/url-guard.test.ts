import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedAddressError, createGuardedFetch, isPrivateAddress } from '../http/url-guard';
import { type FakeProvider, startFakeProvider } from '../testing/fake-provider';
import { createSecretBox, KEY_FILE_NAME } from './crypto';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('createGuardedFetch', () => {
  let first: FakeProvider;
  let second: FakeProvider;
  beforeAll(async () => {
    first = await startFakeProvider('127.0.0.1');
    // Linux answers on all of 127/8; the second address stands in for "the server's own network".
    second = await startFakeProvider('127.0.0.2');
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  const post = (fetcher: typeof fetch, url: string) =>
    fetcher(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
  const rejection = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    throw new Error('expected a rejection');
  };

  it('refuses private IP literals and names that resolve to them', async () => {
    const guarded = createGuardedFetch();
    expect(await rejection(post(guarded, first.baseUrl))).toBeInstanceOf(BlockedAddressError);
    const byName = first.baseUrl.replace('127.0.0.1', 'localhost');
    expect(await rejection(post(guarded, byName))).toBeInstanceOf(BlockedAddressError);
    expect(first.requests).toHaveLength(0);
  });

  it('checks every redirect hop', async () => {
    const onlySecondBlocked = createGuardedFetch((address) => address === '127.0.0.2');
    first.behaviour.redirectTo = `${second.baseUrl}/chat/completions`;
    try {
      expect(await rejection(post(onlySecondBlocked, first.baseUrl))).toBeInstanceOf(BlockedAddressError);
      expect(second.requests).toHaveLength(0);

      // An allowed hop is followed, keeping method and body on 307, without the credentials.
      const nothingBlocked = createGuardedFetch(() => false);
      const response = await post(nothingBlocked, first.baseUrl);
      expect(response.status).toBe(200);
      expect(second.requests).toHaveLength(1);
      expect(second.requests[0]!.body.model).toBe('m');
      expect(second.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      first.reset();
    }
  });

  it('passes answers through, streamed or not', async () => {
    const open = createGuardedFetch(() => false);
    const response = await post(open, first.baseUrl);
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe('Here is the draft.');
    expect(first.requests.at(-1)!.headers.authorization).toBe('Bearer k');
  });
});

describe('createSecretBox', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-secret-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('seals with a fresh IV each time and opens only with the same key', () => {
    const dataDir = tempDir();
    const box = createSecretBox({ dataDir });
    const a = box.encrypt('sk-secret');
    expect(a).not.toBe(box.encrypt('sk-secret'));
    expect(a).not.toContain('sk-secret');
    expect(box.decrypt(a)).toBe('sk-secret');
    // The key file is kept: a second start opens what the first sealed.
    expect(createSecretBox({ dataDir }).decrypt(a)).toBe('sk-secret');
    expect(fs.statSync(path.join(dataDir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(createSecretBox({ dataDir: tempDir() }).decrypt(a)).toBeUndefined();
  });

  it('uses AI_SECRET when given, and detects tampering', () => {
    const dataDir = tempDir();
    const box = createSecretBox({ secret: 'x'.repeat(32), dataDir });
    expect(fs.existsSync(path.join(dataDir, KEY_FILE_NAME))).toBe(false);
    const sealed = box.encrypt('sk-secret');
    expect(createSecretBox({ secret: 'x'.repeat(32), dataDir: tempDir() }).decrypt(sealed)).toBe('sk-secret');
    expect(createSecretBox({ secret: 'y'.repeat(32), dataDir }).decrypt(sealed)).toBeUndefined();
    const bytes = Buffer.from(sealed, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(box.decrypt(bytes.toString('base64'))).toBeUndefined();
    expect(box.decrypt('short')).toBeUndefined();
  });
});
