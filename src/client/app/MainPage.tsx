import { ArchiveIcon, PlusIcon } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { COPY } from '../../common/spec';
import { useDocumentTitle } from '../lib/document-title';
import { INBOX_SCOPE } from '../tasks/api';
import { ADD_TASK_BUTTON_ID } from '../tasks/card-focus';
import { Button } from '../ui/button';
import { PageHeading } from '../ui/page-heading';
import { openDialog } from './dialogs';
import { projectHref } from './screens';
import { TaskTabs } from './TaskTabs';

/**
 * The server's 'X shared "Project" with you' mail links to `/?project={id}` (issue 21): that
 * project's screen opens instead of the Inbox.
 */
function useMailLinkRedirect() {
  const search = useSearch();
  const [, navigate] = useLocation();
  useEffect(() => {
    const id = Number(new URLSearchParams(search).get('project'));
    if (Number.isInteger(id) && id > 0) navigate(projectHref(id), { replace: true });
  }, [search, navigate]);
}

/**
 * The main screen at `/` (spec §2), the caller's Inbox (issue 21): the active list, the archived tab
 * and the Add New Task dialog.
 */
export function MainPage() {
  useDocumentTitle('Tasks');
  useMailLinkRedirect();
  return (
    <>
      <div className="flex items-center justify-between gap-4">
        <PageHeading className="text-2xl font-semibold tracking-tight">{COPY.yourTasks}</PageHeading>
        <Button id={ADD_TASK_BUTTON_ID} onClick={() => openDialog('add-task')}>
          <PlusIcon aria-hidden />
          {COPY.addTask}
        </Button>
      </div>
      <TaskTabs
        scope={INBOX_SCOPE}
        editable
        aside={
          <Link
            href="/archive"
            className="inline-flex items-center gap-1.5 rounded-md px-1 text-sm text-muted-foreground outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
          >
            <ArchiveIcon aria-hidden className="size-4" />
            View archive
          </Link>
        }
      />
    </>
  );
}
