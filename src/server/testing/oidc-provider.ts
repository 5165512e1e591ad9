import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { CustomFetch } from 'openid-client';
import { makeCertificates } from './certificates';

/**
 * A real OpenID Connect provider (`oidc-provider`) for tests, in-process, over HTTPS with a
 * certificate from a throw-away CA made here with the openssl CLI. Its one client is Tasklane;
 * accounts are whatever claims a test sets; the login page is oidc-provider's development one
 * (any password), and consent is granted on the spot, so a flow needs no person.
 */
export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
  given_name?: string;
}

export interface TestOidcProvider {
  /** https://localhost:<port> */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The CA's certificate (PEM) and a file holding it, for NODE_EXTRA_CA_CERTS. */
  ca: string;
  caFile: string;
  /** A fetch for openid-client that trusts the CA. */
  fetch: CustomFetch;
  /** Sets (or replaces) the claims of the account with this subject. */
  setAccount(subject: string, claims: AccountClaims): void;
  /** Stops answering (connections refused) until `resume`, to play a provider that is down. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_OIDC_CLIENT = { clientId: 'tasklane', clientSecret: 'tasklane-test-secret' } as const;

export async function startOidcProvider(options: { redirectUri: string }): Promise<TestOidcProvider> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-oidc-'));
  const certificates = makeCertificates(dir);
  const accounts = new Map<string, AccountClaims>();
  let handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void = (
    _req,
    res,
  ) => res.writeHead(503).end();
  const sockets = new Set<Socket>();
  const server = https.createServer({ key: certificates.key, cert: certificates.cert }, (req, res) =>
    handler(req, res),
  );
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `https://localhost:${port}`;

  const { default: Provider } = await import('oidc-provider');
  const signingKey = crypto
    .generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_OIDC_CLIENT.clientId,
        client_secret: TEST_OIDC_CLIENT.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test', alg: 'ES256', use: 'sig' }] },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'preferred_username'],
    },
    pkce: { required: () => true },
    // Set, so the provider does not print a notice for each default it falls back on.
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, subject) => ({
      accountId: subject,
      claims: () => ({ sub: subject, ...(accounts.get(subject) ?? {}) }),
    }),
    // Consent is granted at once: the person consenting is not what these tests are about.
    async loadExistingGrant(ctx) {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  handler = (req, res) => void callback(req, res);

  const listen = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  return {
    issuer,
    ...TEST_OIDC_CLIENT,
    ca: certificates.ca,
    caFile: certificates.caFile,
    fetch: fetchTrusting(certificates.ca),
    setAccount: (subject, claims) => accounts.set(subject, claims),
    pause: stop,
    resume: listen,
    async close() {
      if (server.listening) await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTPS request trusting `ca`, redirects not followed. */
function httpsRequest(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    ca: string;
    signal?: AbortSignal;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, ca: init.ca, signal: init.signal },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

/** openid-client's customFetch over node:https with the test CA (Node's fetch takes no CA). */
export function fetchTrusting(ca: string): CustomFetch {
  return async (url, options) => {
    const { body } = options;
    const raw = await httpsRequest(url, {
      method: options.method,
      headers: options.headers,
      ca,
      signal: options.signal,
      body:
        body === null || body === undefined
          ? undefined
          : typeof body === 'string' || body instanceof URLSearchParams
            ? String(body)
            : body instanceof ArrayBuffer
              ? Buffer.from(body)
              : body instanceof Uint8Array
                ? Buffer.from(body)
                : undefined,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(raw.headers)) {
      for (const one of [value ?? []].flat()) headers.append(name, one);
    }
    const empty = raw.status === 204 || raw.status === 304;
    return new Response(empty ? null : new Uint8Array(raw.body), { status: raw.status, headers });
  };
}

/**
 * A browser for API tests: follows redirects between the app (through `inject`, at `appUrl`) and
 * the provider (over HTTPS), keeping each host's cookies, and stops when it lands on a page of the
 * app outside /api (the single-page app, which `inject` does not serve).
 */
export class ScriptedBrowser {
  private readonly jar = new Map<string, Map<string, string>>();
  readonly userAgent = 'ScriptedBrowser/1.0 (Tasklane tests)';

  constructor(
    private readonly app: FastifyInstance,
    private readonly appUrl: string,
    private readonly ca: string,
  ) {}

  cookies(url: string): Map<string, string> {
    const host = new URL(url).host;
    let cookies = this.jar.get(host);
    if (!cookies) {
      cookies = new Map();
      this.jar.set(host, cookies);
    }
    return cookies;
  }

  /** One request, no redirects followed; cookies sent and kept. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ status: number; location: string | null; body: string; headers: RawResponse['headers'] }> {
    const cookies = this.cookies(url);
    const headers: Record<string, string> = { 'user-agent': this.userAgent };
    if (cookies.size) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    let raw: RawResponse;
    if (url.startsWith(this.appUrl)) {
      const response = await this.app.inject({
        method: (init.method ?? 'GET') as 'GET',
        url: url.slice(this.appUrl.length) || '/',
        headers,
        ...(body ? { payload: body } : {}),
      });
      raw = {
        status: response.statusCode,
        headers: response.headers as RawResponse['headers'],
        body: response.rawPayload,
      };
    } else {
      raw = await httpsRequest(url, { method: init.method, headers, body, ca: this.ca });
    }
    for (const line of [raw.headers['set-cookie'] ?? []].flat()) keepCookie(cookies, line);
    const location = raw.headers.location;
    return {
      status: raw.status,
      location: typeof location === 'string' ? new URL(location, url).href : null,
      body: raw.body.toString('utf8'),
      headers: raw.headers,
    };
  }

  /**
   * Goes to `url` and follows redirects. Stops at a page (a non-redirect answer), or where a
   * redirect points into the app outside /api: `landedAt` is then that address.
   */
  async navigate(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    let current = url;
    let response = await this.request(current, init);
    for (let hops = 0; response.location && hops < 20; hops += 1) {
      const next = response.location;
      if (next.startsWith(this.appUrl) && !new URL(next).pathname.startsWith('/api/')) {
        return { landedAt: next, response };
      }
      current = next;
      response = await this.request(current);
    }
    return { landedAt: current, response };
  }

  /**
   * "Sign in with …": from the app's start route through the provider's login page as `subject`,
   * back to the app. Returns where the browser landed (`/` or `/?signInError=…`).
   */
  async signInWithProvider(subject: string, start = `${this.appUrl}/api/auth/oidc/start`): Promise<string> {
    const atProvider = await this.navigate(start);
    if (atProvider.landedAt.startsWith(this.appUrl)) return atProvider.landedAt;
    const action = /<form[^>]*action="([^"]+)"/.exec(atProvider.response.body)?.[1];
    if (!action)
      throw new Error(`no login form at ${atProvider.landedAt}: ${atProvider.response.body.slice(0, 300)}`);
    const back = await this.navigate(new URL(action, atProvider.landedAt).href, {
      method: 'POST',
      form: { prompt: 'login', login: subject, password: 'any' },
    });
    return back.landedAt;
  }

  /** Follows the provider's answer up to (not into) the app's callback: the callback URL, unvisited. */
  async callbackUrlFor(subject: string): Promise<string> {
    const atProvider = await this.navigate(`${this.appUrl}/api/auth/oidc/start`);
    const action = /<form[^>]*action="([^"]+)"/.exec(atProvider.response.body)?.[1];
    if (!action) throw new Error('no login form at the provider');
    let response = await this.request(new URL(action, atProvider.landedAt).href, {
      method: 'POST',
      form: { prompt: 'login', login: subject, password: 'any' },
    });
    for (let hops = 0; response.location && hops < 20; hops += 1) {
      if (response.location.startsWith(this.appUrl)) return response.location;
      response = await this.request(response.location);
    }
    throw new Error('the provider did not send the browser back');
  }
}

/** Keeps, replaces or (Max-Age=0, a past Expires) removes the cookie a Set-Cookie line names. */
function keepCookie(cookies: Map<string, string>, line: string) {
  const [pair = '', ...attributes] = line.split(';');
  const at = pair.indexOf('=');
  if (at < 1) return;
  const name = pair.slice(0, at).trim();
  const value = pair.slice(at + 1).trim();
  const expired = attributes.some((attribute) => {
    const [key = '', val = ''] = attribute.trim().split('=');
    if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
    if (key.toLowerCase() === 'expires') return new Date(val).getTime() <= Date.now();
    return false;
  });
  if (expired || value === '') cookies.delete(name);
  else cookies.set(name, value);
}
