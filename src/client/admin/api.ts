import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AccessRequest,
  AdminUser,
  AdminUserListItem,
  AuditEntry,
  CreateUserBody,
  CredentialsResponse,
} from '../../common/admin';
import { apiRequest } from '../lib/api';

/** Query keys are the URLs the default query function GETs (spec §7). */
export const adminUsersKey = ['/api/admin/users'] as const;
export const accessRequestsKey = ['/api/admin/access-requests'] as const;
export const auditLogKey = ['/api/admin/audit-log'] as const;

// The lists live inside the dialog's content, which mounts on each opening; data never goes stale by
// itself (spec §9), so 'always' is what shows requests that arrived since the last look.
export const useAdminUsers = () =>
  useQuery<AdminUserListItem[]>({ queryKey: adminUsersKey, refetchOnMount: 'always' });
export const useAccessRequests = () =>
  useQuery<AccessRequest[]>({ queryKey: accessRequestsKey, refetchOnMount: 'always' });
export const useAuditLog = () => useQuery<AuditEntry[]>({ queryKey: auditLogKey, refetchOnMount: 'always' });

/** Any admin action can change every list: an approval moves a request into the users, say. */
function refreshAdminLists(queryClient: QueryClient): Promise<void> {
  return Promise.all(
    [adminUsersKey, accessRequestsKey, auditLogKey].map((queryKey) =>
      queryClient.invalidateQueries({ queryKey }),
    ),
  ).then(() => undefined);
}

const json = async <T>(res: Response) => (await res.json()) as T;

export const createUser = async (body: CreateUserBody) =>
  json<CredentialsResponse>(await apiRequest('POST', '/api/admin/users', body));

/** Suspends an active user or reactivates a suspended one. */
export const toggleSuspended = async (id: number) =>
  json<AdminUser>(await apiRequest('PATCH', `/api/admin/users/${id}/suspend`));

export const resendInvite = async (id: number) =>
  json<CredentialsResponse>(await apiRequest('POST', `/api/admin/users/${id}/resend-invite`));

export const deleteUser = async (id: number) => {
  await apiRequest('DELETE', `/api/admin/users/${id}`);
};

/** Turns off the user's two-factor sign-in (a lost phone); they are e-mailed. */
export const resetTwoFactor = async (id: number) => {
  await apiRequest('DELETE', `/api/admin/users/${id}/2fa`);
};

export const approveAccessRequest = async (id: number) =>
  json<CredentialsResponse>(await apiRequest('PATCH', `/api/admin/access-requests/${id}/approve`));

export const denyAccessRequest = async (id: number) => {
  await apiRequest('PATCH', `/api/admin/access-requests/${id}/deny`);
};

/** One admin call as a mutation; the lists refresh after it, whether it worked or not. */
export function useAdminAction<TVariables, TData>(call: (variables: TVariables) => Promise<TData>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    // Not awaited: the outcome (the credentials, say) shows at once, the lists catch up after.
    onSettled: () => void refreshAdminLists(queryClient),
  });
}
