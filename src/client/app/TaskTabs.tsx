import type { ReactNode } from 'react';
import { useEffect, useState } from 'react';
import { COPY } from '../../common/spec';
import { useScopeProjectId } from '../sections/api';
import { Board } from '../sections/Board';
import { AddSectionButton } from '../sections/SectionControls';
import { ViewSwitch } from '../sections/ViewSwitch';
import { useTaskView } from '../sections/view';
import { AddTaskDialog } from '../tasks/AddTaskDialog';
import { ArchivedTaskList } from '../tasks/ArchivedTaskList';
import { type TaskScope, useActiveTasks, useArchivedTasks } from '../tasks/api';
import { onShowActiveList } from '../tasks/card-focus';
import { QuickAdd } from '../tasks/QuickAdd';
import { TaskFilterBar } from '../tasks/TaskFilterBar';
import { TaskList } from '../tasks/TaskList';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../ui/tabs';
import { closeDialog, openDialog, useDialogState } from './dialogs';

function Count({ value }: { value: number | undefined }) {
  if (value === undefined) return null;
  return (
    <span className="min-w-5 rounded-full bg-muted-foreground/15 px-1.5 text-xs leading-5 tabular-nums">
      {value}
    </span>
  );
}

type TaskTabsProps = {
  /** The Inbox's tasks or a project's (issue 21). */
  scope: TaskScope;
  /** False for a role below editor, or an archived project: nothing to add, nothing to reorder. */
  editable: boolean;
  /** Beside the tabs (the Inbox's link to its archive screen). */
  aside?: ReactNode;
};

/**
 * A list's body under its heading (spec §2), the Inbox's and every project's: search and filters,
 * the Active and Archived tabs with their counts, quick add over the active list, and the Add New
 * Task dialog ('n', the palette and the Add Task button open it).
 */
export function TaskTabs({ scope, editable, aside }: TaskTabsProps) {
  const adding = useDialogState().open === 'add-task';
  const activeCount = useActiveTasks(scope).data?.length;
  const archivedCount = useArchivedTasks(scope).data?.length;
  // Controlled, so the palette's 'jump to task' can bring the active list back.
  const [tab, setTab] = useState('active');
  // Issue 23: the Inbox and each project have sections, a List and a Board; not the lists across projects.
  const projectId = useScopeProjectId(scope);
  const { view, setView } = useTaskView(projectId);
  useEffect(() => onShowActiveList(() => setTab('active')), []);
  // Made a viewer while adding (live): the dialog has gone, and so must its open state.
  useEffect(() => {
    if (!editable) closeDialog('add-task');
  }, [editable]);

  return (
    <>
      <div className="mt-6">
        <TaskFilterBar />
      </div>
      <Tabs value={tab} onValueChange={setTab}>
        <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
          <TabsList>
            <TabsTrigger value="active">
              {COPY.active} <Count value={activeCount} />
            </TabsTrigger>
            <TabsTrigger value="archived">
              {COPY.archived} <Count value={archivedCount} />
            </TabsTrigger>
          </TabsList>
          <div className="flex flex-wrap items-center gap-3">
            {projectId !== undefined && (
              <>
                <ViewSwitch view={view} onChange={setView} />
                {editable && <AddSectionButton projectId={projectId} />}
              </>
            )}
            {aside}
          </div>
        </div>
        <TabsContent value="active">
          {editable && <QuickAdd scope={scope} />}
          {projectId !== undefined && view === 'board' ? (
            <Board scope={scope} projectId={projectId} editable={editable} />
          ) : (
            <TaskList scope={scope} reorderable={editable} />
          )}
        </TabsContent>
        <TabsContent value="archived">
          <ArchivedTaskList scope={scope} />
        </TabsContent>
      </Tabs>
      {editable && (
        <AddTaskDialog
          scope={scope}
          open={adding}
          onOpenChange={(open) => (open ? openDialog('add-task') : closeDialog('add-task'))}
        />
      )}
    </>
  );
}
