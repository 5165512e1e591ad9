import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createListCache } from './list-cache';

/** A list's JSON that compresses well, as task lists do: `count` similar tasks. */
const listJson = (count: number) =>
  Buffer.from(
    JSON.stringify(
      Array.from({ length: count }, (_, i) => ({ id: i + 1, title: `Task ${i + 1}`, done: false })),
    ),
  );

describe('list cache', () => {
  it('keeps a list over the entry limit in its compressed forms only, once compressed', () => {
    const cache = createListCache(1024 * 1024, 64 * 1024);
    const json = listJson(10_000);
    expect(json.length).toBeGreaterThan(64 * 1024);

    const body = cache.set('1:active', 7, json);
    const br = body.encoded('br');
    expect(zlib.brotliDecompressSync(br).equals(json)).toBe(true);
    // Only the compressed bytes count: the JSON itself is not held.
    expect(cache.bytes()).toBe(br.length);

    const cached = cache.get('1:active', 7);
    expect(cached?.size).toBe(json.length);
    expect(cached?.encoded('br')).toBe(br);
    // A client that takes no compression still gets the list, from the compressed form.
    expect(cached?.json().equals(json)).toBe(true);
    const gzip = cached!.encoded('gzip');
    expect(zlib.gunzipSync(gzip).equals(json)).toBe(true);
    expect(cache.bytes()).toBe(br.length + gzip.length);
    // Another version of the tasks is another list.
    expect(cache.get('1:active', 8)).toBeUndefined();
  });

  it('does not keep a list over the entry limit that was only sent uncompressed', () => {
    const cache = createListCache(1024 * 1024, 64 * 1024);
    const json = listJson(10_000);
    expect(cache.set('1:active', 1, json).json()).toBe(json);
    expect(cache.get('1:active', 1)).toBeUndefined();
    expect(cache.bytes()).toBe(0);
  });

  it('keeps a late compression of an old version from replacing a newer list', () => {
    const cache = createListCache(1024 * 1024, 64 * 1024);
    const old = cache.set('1:active', 1, listJson(10_000));
    const newer = cache.set('1:active', 2, listJson(10_001));
    newer.encoded('br');
    old.encoded('br');
    expect(cache.get('1:active', 2)?.size).toBe(listJson(10_001).length);
    expect(cache.get('1:active', 1)).toBeUndefined();
  });

  it('keeps a small list as JSON, and its compressed forms with it', () => {
    const cache = createListCache(1024 * 1024, 64 * 1024);
    const json = listJson(10);
    const body = cache.set('1:active', 1, json);
    const br = body.encoded('br');
    expect(cache.get('1:active', 1)?.json()).toBe(json);
    expect(cache.bytes()).toBe(json.length + br.length);
  });
});
