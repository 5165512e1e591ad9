import type { FastifyBaseLogger } from 'fastify';
import type * as OpenId from 'openid-client';
import { onFirstUse } from '../on-first-use';

/** What single sign-on asks the provider for (the README's provider setup names the same). */
export const OIDC_SCOPES = 'openid email profile';
/** Each call to the provider (discovery, token, userinfo) gives up after this long. */
const PROVIDER_TIMEOUT_SECONDS = 10;
/** The library, loaded when single sign-on is configured and first used (decision 027). */
const openIdClient = onFirstUse(() => import('openid-client'));

export interface OidcClientOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `${APP_URL}/api/auth/oidc/callback` */
  redirectUri: string;
  logger: FastifyBaseLogger;
  /**
   * How to reach the provider. Production leaves it unset: Node's fetch, which trusts the system's
   * CAs and NODE_EXTRA_CA_CERTS. Tests pass one that trusts their own throw-away CA
   * (src/server/testing/oidc-provider.ts); it is never read from the configuration.
   */
  fetch?: OpenId.CustomFetch;
}

/** What the browser must bring back for the answer to be accepted (sealed in its flow cookie). */
export interface OidcFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The person the provider vouched for, as Tasklane reads them. */
export interface OidcPerson {
  issuer: string;
  subject: string;
  email: string | null;
  /** Only a literal `email_verified: true` counts. */
  emailVerified: boolean;
  preferredUsername: string | null;
  name: string | null;
}

/** The provider could not be reached (or its metadata read): try again later. */
export class OidcUnavailableError extends Error {}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/**
 * The OpenID Connect relying party (openid-client): authorization-code flow with PKCE, state and
 * nonce. The provider's metadata is discovered on first use and kept; a failed discovery is not
 * kept, so the next sign-in tries again (a provider that was down at start-up never stops the server).
 */
export function createOidcClient(options: OidcClientOptions) {
  let configuration: Promise<OpenId.Configuration> | undefined;

  async function discover(): Promise<OpenId.Configuration> {
    const client = await openIdClient();
    const discovered = await client.discovery(
      new URL(options.issuer),
      options.clientId,
      options.clientSecret,
      undefined,
      {
        ...(options.fetch ? { [client.customFetch]: options.fetch } : {}),
        timeout: PROVIDER_TIMEOUT_SECONDS,
      },
    );
    // client_secret_basic is OpenID Connect's default; a provider that offers only _post gets that.
    const metadata = discovered.serverMetadata();
    const methods = metadata.token_endpoint_auth_methods_supported;
    const usePost = methods?.includes('client_secret_post') && !methods.includes('client_secret_basic');
    const config = new client.Configuration(
      metadata,
      options.clientId,
      options.clientSecret,
      usePost
        ? client.ClientSecretPost(options.clientSecret)
        : client.ClientSecretBasic(options.clientSecret),
    );
    if (options.fetch) config[client.customFetch] = options.fetch;
    config.timeout = PROVIDER_TIMEOUT_SECONDS;
    return config;
  }

  function configured(): Promise<OpenId.Configuration> {
    configuration ??= discover().catch((error: unknown) => {
      configuration = undefined;
      options.logger.warn(
        { err: error, issuer: options.issuer },
        'single sign-on: could not read the provider metadata (OIDC_ISSUER); will try again at the next sign-in',
      );
      throw new OidcUnavailableError('the OpenID Connect provider is unreachable');
    });
    return configuration;
  }

  return {
    /** Reads the provider's metadata now (at start-up), so a wrong OIDC_ISSUER shows in the log early. */
    warmUp(): void {
      configured().catch(() => {});
    },

    /** Where to send the browser, and what it must bring back. */
    async begin(): Promise<{ url: string; flow: OidcFlow }> {
      const [config, client] = await Promise.all([configured(), openIdClient()]);
      const flow: OidcFlow = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: options.redirectUri,
        scope: OIDC_SCOPES,
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
      return { url: url.href, flow };
    },

    /**
     * Checks the provider's answer (`callbackUrl` with its query) against the flow, redeems the code
     * and reads who signed in: the ID token's claims, completed by the userinfo endpoint (many
     * providers put `email` only there). Throws on a wrong state, a reused code, a bad token...
     */
    async finish(callbackUrl: URL, flow: OidcFlow): Promise<OidcPerson> {
      const [config, client] = await Promise.all([configured(), openIdClient()]);
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the provider sent no ID token');
      let claims: Record<string, unknown> = { ...idClaims };
      if (config.serverMetadata().userinfo_endpoint) {
        const userInfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...idClaims, ...pickProfile(userInfo) };
      }
      return {
        issuer: idClaims.iss,
        subject: idClaims.sub,
        email: text(claims.email),
        emailVerified: claims.email_verified === true,
        preferredUsername: text(claims.preferred_username),
        name: text(claims.given_name) ?? text(claims.name),
      };
    },
  };
}

/** Profile claims from userinfo win over the ID token's (they are the fresher); iss and sub never do. */
function pickProfile(userInfo: Record<string, unknown>): Record<string, unknown> {
  const { iss: _iss, sub: _sub, aud: _aud, ...profile } = userInfo;
  return profile;
}

export type OidcClient = ReturnType<typeof createOidcClient>;
