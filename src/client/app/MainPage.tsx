import { ArchiveIcon, PlusIcon } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { COPY } from '../../common/spec';
import { useDocumentTitle } from '../lib/document-title';
import { useLiveUpdates } from '../lib/live';
import { AddTaskDialog } from '../tasks/AddTaskDialog';
import { ArchivedTaskList } from '../tasks/ArchivedTaskList';
import { useActiveTasks, useArchivedTasks } from '../tasks/api';
import { ADD_TASK_BUTTON_ID, onShowActiveList } from '../tasks/card-focus';
import { QuickAdd } from '../tasks/QuickAdd';
import { TaskFilterBar } from '../tasks/TaskFilterBar';
import { TaskList } from '../tasks/TaskList';
import { Button } from '../ui/button';
import { PageHeading } from '../ui/page-heading';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../ui/tabs';
import { closeDialog, openDialog, useDialogState } from './dialogs';
import { Header, PAGE_WIDTH } from './Header';

function Count({ value }: { value: number | undefined }) {
  if (value === undefined) return null;
  return (
    <span className="min-w-5 rounded-full bg-muted-foreground/15 px-1.5 text-xs leading-5 tabular-nums">
      {value}
    </span>
  );
}

/** The main screen at `/` (spec §2): the active list, the archived tab and the Add New Task dialog. */
export function MainPage() {
  useDocumentTitle('Tasks');
  useLiveUpdates();
  // 'n' and the command palette open it too (issue 13).
  const adding = useDialogState().open === 'add-task';
  const activeCount = useActiveTasks().data?.length;
  const archivedCount = useArchivedTasks().data?.length;
  // Controlled, so the palette's 'jump to task' can bring the active list back.
  const [tab, setTab] = useState('active');
  useEffect(() => onShowActiveList(() => setTab('active')), []);

  return (
    <>
      <Header />
      <main className={`${PAGE_WIDTH} py-8`}>
        <div className="flex items-center justify-between gap-4">
          <PageHeading className="text-2xl font-semibold tracking-tight">{COPY.yourTasks}</PageHeading>
          <Button id={ADD_TASK_BUTTON_ID} onClick={() => openDialog('add-task')}>
            <PlusIcon aria-hidden />
            {COPY.addTask}
          </Button>
        </div>
        <div className="mt-6">
          <TaskFilterBar />
        </div>
        <Tabs value={tab} onValueChange={setTab}>
          <div className="mb-4 flex items-center justify-between gap-3">
            <TabsList>
              <TabsTrigger value="active">
                {COPY.active} <Count value={activeCount} />
              </TabsTrigger>
              <TabsTrigger value="archived">
                {COPY.archived} <Count value={archivedCount} />
              </TabsTrigger>
            </TabsList>
            <Link
              href="/archive"
              className="inline-flex items-center gap-1.5 rounded-md px-1 text-sm text-muted-foreground outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
            >
              <ArchiveIcon aria-hidden className="size-4" />
              View archive
            </Link>
          </div>
          <TabsContent value="active">
            <QuickAdd />
            <TaskList />
          </TabsContent>
          <TabsContent value="archived">
            <ArchivedTaskList />
          </TabsContent>
        </Tabs>
      </main>
      <AddTaskDialog
        open={adding}
        onOpenChange={(open) => (open ? openDialog('add-task') : closeDialog('add-task'))}
      />
    </>
  );
}
