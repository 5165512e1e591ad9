import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type ApiToken,
  type CreatedToken,
  type CreateTokenBody,
  DEVICE_SESSIONS_PATH,
  type DeviceSession,
  TOKENS_PATH,
} from '../../common/tokens';
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
