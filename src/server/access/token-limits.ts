import { AsyncLocalStorage } from 'node:async_hooks';
import { TOKEN_MESSAGES } from '../../common/tokens';
import { forbidden } from '../http/errors';

/**
 * What a personal API token limits its caller to (issue 24, decision 042): reading only, and some
 * of its owner's projects. A session has no limits.
 */
export interface TokenLimits {
  /** The token's owner: the limits narrow what this user may see, no one else. */
  userId: number;
  /** False: the token only reads. */
  write: boolean;
  /** The projects the token is limited to; null: all of its owner's. */
  projectIds: ReadonlySet<number> | null;
}

/** Methods that only read; any other API request with a read-only token is a 403. */
export const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one rule for a read-only token's writes: every request but GET, HEAD and OPTIONS is refused
 * with 403 'This token can only read'. The session plugin asks it for every /api request before
 * anything else runs; MCP, whose reads are POSTs too, asks `mayWrite` per tool.
 */
export function assertTokenMayUse(limits: TokenLimits | undefined, method: string): void {
  if (!READ_METHODS.has(method) && !mayWrite(limits)) throw forbidden(TOKEN_MESSAGES.readOnly);
}

export const mayWrite = (limits: TokenLimits | undefined): boolean => limits?.write !== false;

/**
 * The limits of the request being served, for the access module: the session plugin runs the rest
 * of a token's request inside `withTokenLimits` (decision 042 says why this is carried along and not
 * passed through every service's signature).
 */
const current = new AsyncLocalStorage<TokenLimits>();

export const withTokenLimits = <T>(limits: TokenLimits, run: () => T): T => current.run(limits, run);

/** The projects `userId` is limited to in this request; null when they are not limited. */
export function projectLimitOf(userId: number): ReadonlySet<number> | null {
  const limits = current.getStore();
  return limits && limits.userId === userId ? limits.projectIds : null;
}
