import { UserCheckIcon } from 'lucide-react';
import { useDocumentTitle } from '../lib/document-title';
import { PROJECT_COPY } from '../projects/copy';
import type { TaskScope } from '../tasks/api';
import { TaskFilterBar } from '../tasks/TaskFilterBar';
import { TaskList } from '../tasks/TaskList';
import { PageHeading } from '../ui/page-heading';

const ASSIGNED: TaskScope = { kind: 'assigned' };
const EMPTY = {
  icon: UserCheckIcon,
  title: PROJECT_COPY.assignedEmpty,
  hint: PROJECT_COPY.assignedEmptyHint,
};

/**
 * 'Assigned to me' (issue 21): the active tasks assigned to the caller, in every project they can
 * see. Their order is each project's, so they are not reordered here.
 */
export function AssignedPage() {
  useDocumentTitle(PROJECT_COPY.assignedToMe);
  return (
    <>
      <PageHeading className="text-2xl font-semibold tracking-tight">{PROJECT_COPY.assignedToMe}</PageHeading>
      <div className="mt-6">
        <TaskFilterBar />
      </div>
      <TaskList scope={ASSIGNED} reorderable={false} empty={EMPTY} />
    </>
  );
}
