import type { AuditAction, AuditEntry } from '../../common/admin';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '../ui/accordion';
import { QueryList } from '../ui/section';
import { useAuditLog } from './api';

const VERBS: Record<AuditAction, string> = {
  'user.create': 'created the account',
  'user.suspend': 'suspended',
  'user.reactivate': 'reactivated',
  'user.resend_invite': 'resent the invite of',
  'user.delete': 'deleted the account',
  'user.2fa_reset': 'turned off two-factor authentication of',
  'access_request.approve': 'approved the access request of',
  'access_request.deny': 'denied the access request of',
};

function ActivityRow({ entry }: { entry: AuditEntry }) {
  const verb = VERBS[entry.action as AuditAction] ?? entry.action;
  return (
    <li className="flex flex-wrap justify-between gap-x-4 text-sm">
      <span className="min-w-0 break-words text-foreground">
        <span className="font-medium">{entry.actorUsername}</span> {verb}{' '}
        {entry.targetLabel && <span className="font-medium">{entry.targetLabel}</span>}
      </span>
      <time dateTime={entry.createdAt} className="text-xs text-muted-foreground tabular-nums">
        {new Date(entry.createdAt).toLocaleString()}
      </time>
    </li>
  );
}

/** Who did what to whom, and when: the server keeps the latest 200 admin actions. */
export function ActivityLog() {
  const query = useAuditLog();
  return (
    <Accordion type="single" collapsible>
      <AccordionItem value="activity" className="border-b-0">
        <AccordionTrigger className="py-2">Activity</AccordionTrigger>
        <AccordionContent>
          <div className="max-h-56 overflow-y-auto pr-1">
            <QueryList query={query} what="the activity" empty="No admin actions yet.">
              {(entries) => entries.map((entry) => <ActivityRow key={entry.id} entry={entry} />)}
            </QueryList>
          </div>
        </AccordionContent>
      </AccordionItem>
    </Accordion>
  );
}
