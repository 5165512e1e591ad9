import { BanIcon, MailIcon, RotateCcwIcon, ShieldOffIcon, Trash2Icon } from 'lucide-react';
import type { AdminUserListItem } from '../../common/admin';
import { AI_RUN_COPY } from '../../common/ai-runs';
import { ERRORS } from '../../common/spec';
import { useSession } from '../lib/session';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import { formatDate, QueryList, Section } from '../ui/section';
import { toast } from '../ui/use-toast';
import {
  deleteUser,
  resendInvite,
  resetTwoFactor,
  toggleSuspended,
  useAdminAction,
  useAdminUsers,
} from './api';
import { showCredentials, showFailure } from './toasts';

// Promises rather than mutate's callbacks: those are dropped once the row unmounts, which the refetch may do first.
function UserRow({ user, isSelf }: { user: AdminUserListItem; isSelf: boolean }) {
  const suspend = useAdminAction(toggleSuspended);
  const resend = useAdminAction(resendInvite);
  const remove = useAdminAction(deleteUser);
  const resetSecondFactor = useAdminAction(resetTwoFactor);
  const busy = suspend.isPending || resend.isPending || remove.isPending || resetSecondFactor.isPending;

  return (
    <li
      aria-label={user.username}
      className="flex flex-col gap-3 rounded-lg border bg-card px-4 py-3 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="grid min-w-0 gap-1">
        <div className="flex flex-wrap items-center gap-1.5">
          <span className="truncate font-medium">{user.username}</span>
          {user.isAdmin && <Badge variant="secondary">Admin</Badge>}
          {user.isSuspended ? (
            <Badge variant="destructive">Suspended</Badge>
          ) : (
            <Badge variant="outline">Active</Badge>
          )}
          {user.twoFactorEnabled && <Badge variant="secondary">2FA</Badge>}
          {isSelf && <span className="text-xs text-muted-foreground">(you)</span>}
        </div>
        <p className="truncate text-sm text-muted-foreground">
          {user.firstName}
          {user.email && <> · {user.email}</>} · Created {formatDate(user.createdAt)}
        </p>
        <p className="text-xs text-muted-foreground tabular-nums">
          {AI_RUN_COPY.tokensThisMonth(user.aiTokens.input + user.aiTokens.output)}
        </p>
      </div>
      {/* The server refuses these on one's own account, so they are not offered there. */}
      {!isSelf && (
        <div className="flex flex-wrap gap-2 sm:flex-nowrap">
          <Button
            variant="outline"
            size="sm"
            disabled={busy}
            aria-label={`${user.isSuspended ? 'Reactivate' : 'Suspend'} ${user.username}`}
            onClick={() =>
              suspend.mutateAsync(user.id).catch((error) => showFailure(ERRORS.updateUserStatus, error))
            }
          >
            {user.isSuspended ? <RotateCcwIcon aria-hidden /> : <BanIcon aria-hidden />}
            {user.isSuspended ? 'Reactivate' : 'Suspend'}
          </Button>
          <Button
            variant="outline"
            size="sm"
            disabled={busy}
            aria-label={`Resend Invite to ${user.username}`}
            onClick={() =>
              resend.mutateAsync(user.id).then(
                (credentials) => showCredentials('Invite Resent', credentials),
                (error) => showFailure(ERRORS.resendInvite, error),
              )
            }
          >
            <MailIcon aria-hidden />
            Resend Invite
          </Button>
          {user.twoFactorEnabled && (
            <ConfirmButton
              title="Turn off two-factor authentication?"
              description={
                <>
                  <strong className="text-foreground">{user.username}</strong> will sign in with their
                  password alone, and their recovery codes stop working. They are e-mailed about it. Do this
                  only when you are sure it is them asking (a lost phone, say).
                </>
              }
              confirmLabel="Turn off"
              onConfirm={() =>
                resetSecondFactor.mutateAsync(user.id).then(
                  () => toast({ title: `Two-factor authentication is off for ${user.username}.` }),
                  (error) => showFailure('Failed to turn off two-factor authentication', error),
                )
              }
            >
              <Button
                variant="outline"
                size="sm"
                disabled={busy}
                aria-label={`Turn off two-factor authentication for ${user.username}`}
              >
                <ShieldOffIcon aria-hidden />
                Reset 2FA
              </Button>
            </ConfirmButton>
          )}
          <ConfirmButton
            title="Delete user account?"
            description={
              <>
                This permanently deletes <strong className="text-foreground">{user.username}</strong> with all
                their tasks, agents and files. It cannot be undone.
              </>
            }
            confirmLabel="Delete"
            onConfirm={() =>
              remove.mutateAsync(user.id).catch((error) => showFailure(ERRORS.deleteUser, error))
            }
          >
            <Button
              variant="outline"
              size="sm"
              disabled={busy}
              aria-label={`Delete ${user.username}`}
              className="text-destructive hover:text-destructive"
            >
              <Trash2Icon aria-hidden />
              Delete
            </Button>
          </ConfirmButton>
        </div>
      )}
    </li>
  );
}

export function UserList() {
  const query = useAdminUsers();
  const selfId = useSession()?.user.id;
  return (
    <Section title="Users" count={query.data?.length}>
      <QueryList query={query} what="users" empty="No users yet. Create the first one above.">
        {(users) => users.map((user) => <UserRow key={user.id} user={user} isSelf={user.id === selfId} />)}
      </QueryList>
    </Section>
  );
}
