import crypto from 'node:crypto';
import type { OidcFlow } from './oidc-client';

/** How long a browser has between "Sign in with …" and coming back from the provider. */
export const OIDC_FLOW_TTL_MS = 10 * 60 * 1000;

/**
 * A sign-in's state, nonce and PKCE verifier travel in a cookie of the browser that started it
 * (httpOnly, SameSite=Lax, sent only to the callback), sealed with AES-256-GCM under a key derived
 * from OIDC_CLIENT_SECRET: every instance opens what another sealed, the browser can neither read
 * nor alter it, and nothing is stored on the server. A callback without the cookie (another browser)
 * or with another sign-in's cookie fails the state check.
 */
export function createFlowSeal(clientSecret: string) {
  const key = Buffer.from(crypto.hkdfSync('sha256', clientSecret, 'tasklane', 'oidc flow cookie v1', 32));

  return {
    seal(flow: OidcFlow, now = Date.now()): string {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const payload = JSON.stringify({ ...flow, expiresAt: now + OIDC_FLOW_TTL_MS });
      const sealed = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    },

    /** The flow, or null when the value is not one we sealed, was altered, or has expired. */
    open(value: string | undefined, now = Date.now()): OidcFlow | null {
      if (!value || value.length > 2000) return null;
      try {
        const raw = Buffer.from(value, 'base64url');
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        const payload = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
        const { state, nonce, codeVerifier, expiresAt } = JSON.parse(payload) as OidcFlow & {
          expiresAt: number;
        };
        if (typeof expiresAt !== 'number' || expiresAt <= now) return null;
        return { state, nonce, codeVerifier };
      } catch {
        return null;
      }
    },
  };
}
