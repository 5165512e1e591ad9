import { CheckIcon, XIcon } from 'lucide-react';
import type { AccessRequest } from '../../common/admin';
import { ERRORS } from '../../common/spec';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import { formatDate, QueryList, Section } from '../ui/section';
import { approveAccessRequest, denyAccessRequest, useAccessRequests, useAdminAction } from './api';
import { showCredentials, showFailure } from './toasts';

// Promises rather than mutate's callbacks: the refetch removes the row, and with it those callbacks.
function RequestRow({ request }: { request: AccessRequest }) {
  const approve = useAdminAction(approveAccessRequest);
  const deny = useAdminAction(denyAccessRequest);
  const busy = approve.isPending || deny.isPending;

  return (
    <li
      aria-label={request.email}
      className="flex flex-col gap-3 rounded-lg border bg-card px-4 py-3 sm:flex-row sm:items-start sm:justify-between"
    >
      <div className="grid min-w-0 gap-1">
        <p className="truncate font-medium">{request.email}</p>
        <p className="truncate text-sm text-muted-foreground">
          Requested username <span className="font-medium text-foreground">{request.requestedUsername}</span>{' '}
          · {formatDate(request.createdAt)}
        </p>
        {request.message && (
          <p className="text-sm break-words whitespace-pre-wrap text-muted-foreground italic">
            “{request.message}”
          </p>
        )}
      </div>
      <div className="flex shrink-0 gap-2">
        <Button
          size="sm"
          disabled={busy}
          aria-label={`Approve ${request.email}`}
          onClick={() =>
            approve.mutateAsync(request.id).then(
              (credentials) => showCredentials('Access Request Approved', credentials),
              (error) => showFailure(ERRORS.approveRequest, error),
            )
          }
        >
          <CheckIcon aria-hidden />
          Approve
        </Button>
        <ConfirmButton
          title="Deny access request?"
          description={
            <>
              The request from <strong className="text-foreground">{request.email}</strong> is removed and the
              requester is told by e-mail.
            </>
          }
          confirmLabel="Deny"
          onConfirm={() =>
            deny.mutateAsync(request.id).catch((error) => showFailure(ERRORS.denyRequest, error))
          }
        >
          <Button variant="outline" size="sm" disabled={busy} aria-label={`Deny ${request.email}`}>
            <XIcon aria-hidden />
            Deny
          </Button>
        </ConfirmButton>
      </div>
    </li>
  );
}

export function AccessRequestList() {
  const query = useAccessRequests();
  return (
    <Section title="Access Requests" count={query.data?.length}>
      <QueryList query={query} what="access requests" empty="No pending access requests.">
        {(requests) => requests.map((request) => <RequestRow key={request.id} request={request} />)}
      </QueryList>
    </Section>
  );
}
