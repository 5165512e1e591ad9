import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type ApiToken,
  type CreatedToken,
  type CreateTokenBody,
  DEVICE_SESSIONS_PATH,
  type DeviceSession,
  TOKENS_PATH,
} from '../../common/tokens';
import {
  type DisableTwoFactorBody,
  type EnableTwoFactorBody,
  type RecoveryCodes,
  TWO_FACTOR_PATHS,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from '../../common/two-factor';
import { apiRequest } from '../lib/api';

/** Query keys are the URLs the default query function GETs (spec §7). */
export const deviceSessionsKey = [DEVICE_SESSIONS_PATH] as const;
export const apiTokensKey = [TOKENS_PATH] as const;

// The lists live in the Security dialog, which mounts its content on each opening: show what is true now.
export const useDeviceSessions = () =>
  useQuery<DeviceSession[]>({ queryKey: deviceSessionsKey, refetchOnMount: 'always' });
export const useApiTokens = () => useQuery<ApiToken[]>({ queryKey: apiTokensKey, refetchOnMount: 'always' });

/** Ends one of the person's other sessions (that browser is signed out at its next request). */
export const endDeviceSession = async (id: string) => {
  await apiRequest('DELETE', `${DEVICE_SESSIONS_PATH}/${encodeURIComponent(id)}`);
};

/** 'Sign out everywhere else'. */
export const endOtherDeviceSessions = async () => {
  await apiRequest('DELETE', DEVICE_SESSIONS_PATH);
};

export const createApiToken = async (body: CreateTokenBody) =>
  (await (await apiRequest('POST', TOKENS_PATH, body)).json()) as CreatedToken;

export const revokeApiToken = async (id: number) => {
  await apiRequest('DELETE', `${TOKENS_PATH}/${id}`);
};

/** A change to one of the Security lists, which is refetched once it settles. */
export function useSecurityAction<A, R>(action: (arg: A) => Promise<R>, queryKey: readonly string[]) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}

// --- Two-factor authentication (TOTP): TwoFactorSection.

export const twoFactorStatusKey = [TWO_FACTOR_PATHS.status] as const;

export const useTwoFactorStatus = () =>
  useQuery<TwoFactorStatus>({ queryKey: twoFactorStatusKey, refetchOnMount: 'always' });

/** A new secret to scan; not in force until `enableTwoFactor` confirms a code from it. */
export const setUpTwoFactor = async () =>
  (await (await apiRequest('POST', TWO_FACTOR_PATHS.setup)).json()) as TwoFactorSetup;

/** Turns it on; the recovery codes in the answer are shown this once. */
export const enableTwoFactor = async (body: EnableTwoFactorBody) =>
  (await (await apiRequest('POST', TWO_FACTOR_PATHS.enable, body)).json()) as RecoveryCodes;

/** A wrong password answers 400, not 401: it must not sign this browser out. */
export const disableTwoFactor = async (body: DisableTwoFactorBody) => {
  await apiRequest('POST', TWO_FACTOR_PATHS.disable, body, { signOutOn401: false });
};
