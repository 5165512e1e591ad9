import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
// The library web-push itself encrypts with (RFC 8188 / RFC 8291), used here the other way round.
import ece from 'http_ece';
import { makeCertificates } from './certificates';

/**
 * A push service for tests (issue 22): an HTTPS endpoint such as a browser's vendor runs. Each
 * subscription is made here as a browser makes one (a P-256 key pair and a 16-byte auth secret);
 * a message to it must carry a valid VAPID Authorization (RFC 8292: `vapid t=<JWT>, k=<key>`, an
 * ES256 JWT signed by that key, `aud` the endpoint's origin, `exp` in the future and within 24
 * hours) and an `aes128gcm` body, which is decrypted with the subscription's private key. Each
 * endpoint answers 201 or whatever status the test sets.
 */
export interface TestBrowserSubscription {
  /** What the browser would POST to /api/push/subscriptions. */
  json: { endpoint: string; keys: { p256dh: string; auth: string } };
  endpoint: string;
  /** The status this endpoint answers with (201 unless set). */
  setStatus(status: number): void;
}

export interface ReceivedPush {
  endpoint: string;
  /** The decrypted body, as text. */
  payload: string;
  /** The VAPID public key (`k=`) the message was signed with. */
  vapidKey: string;
  /** The JWT's claims. */
  claims: { aud: string; exp: number; sub: string };
  ttl: string | undefined;
  /** What the endpoint answered. */
  status: number;
}

export interface RejectedPush {
  endpoint: string;
  reason: string;
}

export interface TestPushService {
  origin: string;
  /** An HTTPS agent that trusts this service's certificate (the app's `pushAgent`). */
  agent: https.Agent;
  /** A new subscription, as a browser's PushManager.subscribe would make. */
  subscribe(): TestBrowserSubscription;
  /** Messages that passed every check, in arrival order. */
  received: ReceivedPush[];
  /** Messages refused (401/400) and why. */
  rejected: RejectedPush[];
  close(): Promise<void>;
}

interface Endpoint {
  ecdh: crypto.ECDH;
  auth: Buffer;
  status: number;
}

/** The claims of a VAPID JWT if its ES256 signature holds for `publicKey` (base64url raw point). */
export function verifyVapidJwt(jwt: string, publicKey: string): { aud: string; exp: number; sub: string } {
  const parts = jwt.split('.');
  if (parts.length !== 3) throw new Error('the JWT does not have three parts');
  const [header64, claims64, signature64] = parts as [string, string, string];
  const header = JSON.parse(Buffer.from(header64, 'base64url').toString('utf8')) as { alg?: string };
  if (header.alg !== 'ES256') throw new Error(`the JWT's alg is ${header.alg}, not ES256`);
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = crypto.createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const valid = crypto.verify(
    'sha256',
    Buffer.from(`${header64}.${claims64}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature64, 'base64url'),
  );
  if (!valid) throw new Error('the JWT signature does not verify with k');
  return JSON.parse(Buffer.from(claims64, 'base64url').toString('utf8'));
}

export async function startTestPushService(): Promise<TestPushService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-push-'));
  const certificates = makeCertificates(dir);
  const endpoints = new Map<string, Endpoint>();
  const received: ReceivedPush[] = [];
  const rejected: RejectedPush[] = [];

  const server = https.createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const endpoint = `${origin}${req.url}`;
      const refuse = (status: number, reason: string) => {
        rejected.push({ endpoint, reason });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(reason);
      };
      const target = endpoints.get(req.url ?? '');
      if (req.method !== 'POST' || !target) return refuse(404, 'no such subscription');
      const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(req.headers.authorization ?? '');
      if (!match) return refuse(401, `Authorization is not 'vapid t=…, k=…': ${req.headers.authorization}`);
      let claims: ReceivedPush['claims'];
      try {
        claims = verifyVapidJwt(match[1]!, match[2]!);
      } catch (error) {
        return refuse(401, (error as Error).message);
      }
      const now = Math.floor(Date.now() / 1000);
      if (claims.aud !== origin) return refuse(401, `aud is ${claims.aud}, not ${origin}`);
      if (!(claims.exp > now)) return refuse(401, 'the JWT has expired');
      if (claims.exp > now + 24 * 60 * 60) return refuse(401, 'exp is more than 24 hours ahead');
      if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return refuse(401, `sub is ${claims.sub}`);
      if (req.headers['content-encoding'] !== 'aes128gcm') {
        return refuse(400, `Content-Encoding is ${req.headers['content-encoding']}`);
      }
      let payload: string;
      try {
        payload = ece
          .decrypt(Buffer.concat(chunks), {
            version: 'aes128gcm',
            privateKey: target.ecdh,
            authSecret: target.auth.toString('base64url'),
          })
          .toString('utf8');
      } catch (error) {
        return refuse(400, `the body does not decrypt: ${(error as Error).message}`);
      }
      received.push({
        endpoint,
        payload,
        vapidKey: match[2]!,
        claims,
        ttl: req.headers.ttl as string | undefined,
        status: target.status,
      });
      res.writeHead(target.status, { location: endpoint }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  const agent = new https.Agent({ ca: certificates.ca });

  return {
    origin,
    agent,
    received,
    rejected,
    subscribe() {
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      const pathname = `/push/${crypto.randomBytes(12).toString('base64url')}`;
      const state: Endpoint = { ecdh, auth, status: 201 };
      endpoints.set(pathname, state);
      const endpoint = `${origin}${pathname}`;
      return {
        endpoint,
        json: {
          endpoint,
          keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
        },
        setStatus(status: number) {
          state.status = status;
        },
      };
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
