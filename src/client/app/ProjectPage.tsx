import { ArchiveIcon, CalendarDaysIcon, LayoutTemplateIcon, PlusIcon, UsersIcon } from 'lucide-react';
import { lazy, useEffect, useMemo, useRef } from 'react';
import { Link, useLocation } from 'wouter';
import type { Project } from '../../common/projects';
import { COPY } from '../../common/spec';
import { useDocumentTitle } from '../lib/document-title';
import { useNeedsConnection } from '../offline/connection-status';
import { canChangeTasks, useMembers, useProject } from '../projects/api';
import { PROJECT_COPY } from '../projects/copy';
import { MemberAvatar } from '../projects/MemberAvatar';
import { ProjectDot } from '../projects/ProjectDot';
import { ProjectsLoadError } from '../projects/ProjectsLoadError';
import type { TaskScope } from '../tasks/api';
import { ADD_TASK_BUTTON_ID } from '../tasks/card-focus';
import { TEMPLATE_COPY } from '../templates/copy';
import { Button } from '../ui/button';
import { LazyPart } from '../ui/lazy';
import { PageHeading } from '../ui/page-heading';
import { Skeleton } from '../ui/skeleton';
import { toast } from '../ui/use-toast';
import { VIEW_COPY } from '../views/copy';
import { closeDialog, dialogControl, openDialog, useDialogState } from './dialogs';
import { projectCalendarHref, SCREEN_PATHS } from './screens';
import { TaskTabs } from './TaskTabs';

const ShareDialog = lazy(() => import('../projects/ShareDialog').then((m) => ({ default: m.ShareDialog })));
const SaveTemplateDialog = lazy(() =>
  import('../templates/SaveTemplateDialog').then((m) => ({ default: m.SaveTemplateDialog })),
);

/** How many members' initials the header shows; the rest are counted. */
const AVATARS_SHOWN = 4;

function Members({ projectId }: { projectId: number }) {
  const { data: members } = useMembers(projectId);
  if (!members) return null;
  const hidden = members.length - AVATARS_SHOWN;
  return (
    <ul aria-label={PROJECT_COPY.members} className="flex items-center -space-x-2">
      {members.slice(0, AVATARS_SHOWN).map((member) => (
        <li key={member.userId}>
          <MemberAvatar member={member} withRole className="ring-2 ring-background" />
        </li>
      ))}
      {hidden > 0 && (
        <li className="inline-flex size-8 items-center justify-center rounded-full bg-muted text-xs font-medium text-muted-foreground ring-2 ring-background">
          <span aria-hidden>+{hidden}</span>
          <span className="sr-only">and {hidden} more</span>
        </li>
      )}
    </ul>
  );
}

function ProjectHeader({ project, editable }: { project: Project; editable: boolean }) {
  // Sharing (members, invitations) needs the server (issue 31).
  const sharing = useNeedsConnection();
  return (
    <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-3">
      <div className="flex min-w-0 items-center gap-3">
        <ProjectDot color={project.color} className="size-3.5" />
        <PageHeading className="min-w-0 truncate text-2xl font-semibold tracking-tight">
          {project.name}
        </PageHeading>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Members projectId={project.id} />
        <Button asChild variant="outline">
          <Link href={projectCalendarHref(project.id)}>
            <CalendarDaysIcon aria-hidden />
            {VIEW_COPY.calendar}
          </Link>
        </Button>
        <Button variant="outline" onClick={() => openDialog('share')} {...sharing.control}>
          <UsersIcon aria-hidden />
          {PROJECT_COPY.share}
        </Button>
        {sharing.note}
        <Button variant="outline" onClick={() => openDialog('save-template')}>
          <LayoutTemplateIcon aria-hidden />
          {TEMPLATE_COPY.saveAsTemplate}
        </Button>
        {editable && (
          <Button id={ADD_TASK_BUTTON_ID} onClick={() => openDialog('add-task')}>
            <PlusIcon aria-hidden />
            {COPY.addTask}
          </Button>
        )}
      </div>
    </div>
  );
}

/**
 * Leaves for the Inbox when the project is not, or no longer, among the caller's (issue 21): deleted,
 * or the caller removed, here or live from another browser; the Inbox itself is shown at `/`.
 */
function useLeaveWhenGone(project: Project | undefined, settled: boolean) {
  const [, navigate] = useLocation();
  const seenName = useRef<string | null>(null);
  useEffect(() => {
    if (project) seenName.current = project.name;
    // The address's query (a notification's ?task=) goes along.
    if (project?.inbox) navigate(`${SCREEN_PATHS.inbox}${window.location.search}`, { replace: true });
    if (project || !settled) return;
    closeDialog('add-task');
    navigate(SCREEN_PATHS.inbox, { replace: true });
    const name = seenName.current;
    toast(
      name === null
        ? { title: PROJECT_COPY.notFound }
        : { title: PROJECT_COPY.gone, description: PROJECT_COPY.goneDescription(name) },
    );
  }, [project, settled, navigate]);
}

/**
 * A project's screen at `/projects/{id}` (issue 21): its colour, name and members, 'Share', and the
 * same list as the Inbox. Roles below editor, and an archived project, see no add, edit or reorder
 * controls.
 */
export function ProjectPage({ projectId }: { projectId: number }) {
  const { data: project, isPending, isFetching, isError, refetch } = useProject(projectId);
  const { open, mounted } = useDialogState();
  const scope = useMemo<TaskScope>(() => ({ kind: 'project', projectId }), [projectId]);
  useDocumentTitle(project?.name ?? PROJECT_COPY.projects);
  useLeaveWhenGone(project, !isPending && !isFetching && !isError);
  // The share and template dialogs belong to this screen: they do not stay open for the next one.
  useEffect(
    () => () => {
      closeDialog('share');
      closeDialog('save-template');
    },
    [],
  );

  if (isError && !project) return <ProjectsLoadError onRetry={() => void refetch()} />;
  if (!project || project.inbox) {
    return (
      <div aria-hidden className="grid gap-4">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-9" />
      </div>
    );
  }
  const editable = canChangeTasks(project);
  return (
    <>
      <ProjectHeader project={project} editable={editable} />
      {project.archived && (
        <p className="mt-4 flex items-center gap-2 rounded-lg border bg-muted/60 px-3 py-2 text-sm">
          <ArchiveIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />
          {PROJECT_COPY.archivedNotice}
        </p>
      )}
      <TaskTabs scope={scope} editable={editable} />
      <LazyPart>
        {mounted.has('share') && <ShareDialog project={project} {...dialogControl('share', open)} />}
        {mounted.has('save-template') && (
          <SaveTemplateDialog project={project} {...dialogControl('save-template', open)} />
        )}
      </LazyPart>
    </>
  );
}
