/**
 * The few parts of `oidc-provider` (a test-only dependency without bundled types) that
 * ./oidc-provider.ts uses. @types/oidc-provider would be the whole API for a dozen lines.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface GrantConstructor {
    new (properties: { clientId: string; accountId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }
  interface InteractionContext {
    oidc: {
      result?: { consent?: { grantId?: string } };
      session?: { accountId: string; grantIdFor(clientId: string): string | undefined };
      client?: { clientId: string };
      provider: { Grant: GrantConstructor };
    };
  }
  export interface Configuration {
    clients: Array<Record<string, unknown>>;
    jwks: { keys: Array<Record<string, unknown>> };
    cookies: { keys: string[] };
    claims: Record<string, string[]>;
    pkce: { required: () => boolean };
    ttl: Record<string, number>;
    features: Record<string, { enabled: boolean }>;
    findAccount(
      ctx: unknown,
      subject: string,
    ): { accountId: string; claims(): Record<string, unknown> | Promise<Record<string, unknown>> };
    loadExistingGrant(ctx: InteractionContext): Promise<Grant | undefined>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  }
}
