import { ArchiveIcon, ArrowLeftIcon, ListTodoIcon } from 'lucide-react';
import { Link } from 'wouter';
import { counted } from '../../common/plural';
import { COPY } from '../../common/spec';
import { useDocumentTitle } from '../lib/document-title';
import { ArchivedTaskList } from '../tasks/ArchivedTaskList';
import { useArchivedTasks } from '../tasks/api';
import { TaskFilterBar } from '../tasks/TaskFilterBar';
import { Button } from '../ui/button';
import { Card, CardContent } from '../ui/card';
import { PageHeading } from '../ui/page-heading';

/**
 * The archive screen at `/archive` (spec §2), the Inbox's: an overview, then every archived task with
 * a restore button. Its header's menu has neither logout nor the theme (AppShell).
 */
export function ArchivePage() {
  useDocumentTitle('Archive');
  const archivedCount = useArchivedTasks().data?.length;

  return (
    <>
      <Button asChild variant="ghost" size="sm" className="-ml-3">
        <Link href="/">
          <ArrowLeftIcon aria-hidden />
          {COPY.backToTasks}
        </Link>
      </Button>
      <Card className="mt-4 mb-6">
        <CardContent className="flex flex-wrap items-center justify-between gap-4 pt-6">
          <div className="flex items-center gap-4">
            <div className="flex size-11 items-center justify-center rounded-full bg-accent text-accent-foreground">
              <ArchiveIcon aria-hidden className="size-5" />
            </div>
            <div>
              <PageHeading className="text-xl font-semibold tracking-tight">
                {COPY.archiveOverview}
              </PageHeading>
              <p className="text-sm text-muted-foreground" aria-live="polite">
                {archivedCount === undefined
                  ? 'Counting archived tasks...'
                  : counted(archivedCount, 'archived task', 'archived tasks')}
              </p>
            </div>
          </div>
          <Button asChild variant="outline">
            <Link href="/">
              <ListTodoIcon aria-hidden />
              {COPY.activeTasks}
            </Link>
          </Button>
        </CardContent>
      </Card>
      <TaskFilterBar />
      <ArchivedTaskList />
    </>
  );
}
