import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import { badRequest } from './errors';

/**
 * A user-chosen URL (an AI base URL, a webhook's destination) must not reach the server's own
 * network (SSRF): loopback, private, link-local, unique-local and the like, including names that
 * resolve there and redirects. The administrator can allow it (AI_ALLOW_PRIVATE_BASE_URLS,
 * WEBHOOKS_ALLOW_PRIVATE) for a model or a receiver on the LAN.
 */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  // ::, ::1 and the old IPv4-compatible form; IPv4-mapped addresses are checked against the IPv4 rules.
  ['::', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The guard's 400 answers, naming the field checked ('Base URL', 'url'). */
export const urlGuardMessages = (field: string) =>
  ({
    invalid: `${field} must be a valid http:// or https:// URL`,
    credentials: `${field} must not contain a user name or password`,
    unresolved: `${field} host could not be found`,
    private: `${field} points to a private or local network address, which is not allowed`,
  }) as const;

export const URL_GUARD_MESSAGES = urlGuardMessages('Base URL');

/** Checks a base URL before it is stored; throws a 400 naming the problem. */
export async function assertAllowedBaseUrl(raw: string, allowPrivate: boolean): Promise<string> {
  return (await assertAllowedUrl(raw, allowPrivate, URL_GUARD_MESSAGES)).toString().replace(/\/+$/, '');
}

/** Checks a URL before it is stored; throws a 400 with `messages`' words for the problem. */
export async function assertAllowedUrl(
  raw: string,
  allowPrivate: boolean,
  messages: ReturnType<typeof urlGuardMessages>,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(messages.invalid);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(messages.invalid);
  if (url.username || url.password) throw badRequest(messages.credentials);
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = net.isIP(host)
        ? [host]
        : (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw badRequest(messages.unresolved);
    }
    if (addresses.length === 0) throw badRequest(messages.unresolved);
    if (addresses.some(isPrivateAddress)) throw badRequest(messages.private);
  }
  return url;
}

export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
}

type AddressPolicy = (address: string) => boolean;

/** dns.lookup that refuses blocked addresses: the check happens on the address actually connected to. */
const lookupRefusing =
  (isBlocked: AddressPolicy): net.LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0 || list.some((a) => isBlocked(a.address))) {
        return callback(new BlockedAddressError(URL_GUARD_MESSAGES.private), '', 0);
      }
      if (options.all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };

const MAX_REDIRECTS = 5;

/**
 * A fetch for a user-chosen URL (the openai SDK's base URL, a webhook). It resolves and checks every
 * hop at connect time (so DNS rebinding cannot slip past a check made earlier), refuses IP literals
 * in the private ranges, and follows redirects itself so each new host is checked too; with
 * `redirect: 'manual'` it answers the 3xx as it is (webhooks follow none).
 */
export function createGuardedFetch(isBlocked: AddressPolicy = isPrivateAddress): typeof fetch {
  const lookup = lookupRefusing(isBlocked);
  return async (input, init) => {
    let request = new Request(input, init);
    let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await send(request, body, isBlocked, lookup);
      const location = response.headers.get('location');
      if (request.redirect === 'manual') return response;
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await response.body?.cancel();
      const next = new URL(location, request.url);
      const headers = new Headers(request.headers);
      // Credentials never follow a redirect to another origin.
      if (next.origin !== new URL(request.url).origin) headers.delete('authorization');
      const keepMethod = response.status === 307 || response.status === 308;
      if (!keepMethod) body = undefined;
      request = new Request(next, {
        method: keepMethod ? request.method : 'GET',
        headers,
        signal: request.signal,
      });
    }
    throw new TypeError('Too many redirects');
  };
}

function send(
  request: Request,
  body: Buffer | undefined,
  isBlocked: AddressPolicy,
  lookup: net.LookupFunction,
): Promise<Response> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new TypeError(URL_GUARD_MESSAGES.invalid));
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && isBlocked(host)) {
    return Promise.reject(new BlockedAddressError(URL_GUARD_MESSAGES.private));
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body) headers['content-length'] = String(body.length);
  // Answers are read as sent: this fetch does not decompress.
  headers['accept-encoding'] = 'identity';
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      { method: request.method, headers, lookup, signal: request.signal },
      (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
        }
        const nullBody = res.statusCode === 204 || res.statusCode === 304 || request.method === 'HEAD';
        if (nullBody) res.resume();
        resolve(
          new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status: res.statusCode ?? 502,
            statusText: res.statusMessage,
            headers: responseHeaders,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
