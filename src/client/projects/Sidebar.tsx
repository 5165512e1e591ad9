import {
  CalendarDaysIcon,
  CalendarRangeIcon,
  ChevronRightIcon,
  CopyPlusIcon,
  InboxIcon,
  PlusIcon,
  SunIcon,
  UserCheckIcon,
} from 'lucide-react';
import { Collapsible } from 'radix-ui';
import { type ReactNode, useState } from 'react';
import { Link } from 'wouter';
import { counted } from '../../common/plural';
import type { Project } from '../../common/projects';
import { projectHref, SCREEN_PATHS, useScreen } from '../app/screens';
import { SavedFilters, SidebarLabels } from '../labels/SidebarLists';
import { cn } from '../lib/cn';
import { DROP_PROJECT_ATTRIBUTE, useIsDropTarget } from '../tasks/drag';
import { TEMPLATE_COPY } from '../templates/copy';
import { Button } from '../ui/button';
import { Skeleton } from '../ui/skeleton';
import { useListsSettled, useTodayTasks, useUpcomingTasks } from '../views/api';
import { VIEW_COPY } from '../views/copy';
import { canChangeTasks, useProjects } from './api';
import { PROJECT_COPY } from './copy';
import { ProjectDot } from './ProjectDot';
import { ProjectsLoadError } from './ProjectsLoadError';
import { SIDEBAR_LINK_CLASSES } from './sidebar-styles';

type SidebarProps = {
  /**
   * Beside the list, the projects take task cards dropped on them (issue 21); in the phone's drawer
   * nothing is dragged.
   */
  dropTargets: boolean;
  /** A link was followed (the drawer closes). */
  onNavigate?: () => void;
  /** 'New project', or (issue 29) 'New project from template'. */
  onNewProject: (dialog?: 'new-project' | 'new-from-template') => void;
};

type ItemProps = {
  href: string;
  current: boolean;
  icon: ReactNode;
  label: string;
  count?: number;
  /** The project a card dropped here moves to, when this item takes drops. */
  dropProjectId?: number;
  onNavigate?: () => void;
};

/** One line of the sidebar: a link, with the project's count; beside the list, a place to drop a card. */
function SidebarItem({ href, current, icon, label, count, dropProjectId, onNavigate }: ItemProps) {
  const targeted = useIsDropTarget(dropProjectId);
  return (
    <li
      {...(dropProjectId === undefined ? {} : { [DROP_PROJECT_ATTRIBUTE]: dropProjectId })}
      className={cn('rounded-md', targeted && 'bg-accent ring-2 ring-ring')}
    >
      <Link
        href={href}
        aria-current={current ? 'page' : undefined}
        // Named 'Garden, 2 tasks': the count is a number on screen, in words to a screen reader.
        aria-label={count === undefined ? undefined : `${label}, ${counted(count, 'task', 'tasks')}`}
        onClick={onNavigate}
        className={SIDEBAR_LINK_CLASSES}
      >
        {icon}
        <span className="min-w-0 flex-1 truncate">{label}</span>
        {count !== undefined && (
          <span aria-hidden className="text-xs text-muted-foreground tabular-nums">
            {count}
          </span>
        )}
      </Link>
    </li>
  );
}

/**
 * The signed-in screens' navigation (issue 21): the Inbox ('Your Tasks'), 'Assigned to me', the
 * caller's projects with their colours and active task counts, 'New project', and the archived
 * projects folded away. Beside the list (dropTargets) a card dropped on a project moves there.
 */
export function Sidebar({ dropTargets, onNavigate, onNewProject }: SidebarProps) {
  const screen = useScreen();
  const { data: projects, isPending, isError, refetch } = useProjects();
  const counting = useListsSettled();
  const todayCount = useTodayTasks(counting).data?.length;
  const upcomingCount = useUpcomingTasks(counting).data?.length;
  const currentProjectId =
    screen?.page === 'project' || screen?.page === 'project-calendar' ? screen.projectId : undefined;
  const inbox = projects?.find((project) => project.inbox);
  const shown = projects?.filter((project) => !project.inbox && !project.archived) ?? [];
  const archived = projects?.filter((project) => !project.inbox && project.archived) ?? [];
  // The list shown is the Inbox's or a project's: a card dragged from it cannot be dropped back there.
  const shownListId = screen?.page === 'inbox' ? inbox?.id : currentProjectId;

  const projectItem = (project: Project, withDrop: boolean) => (
    <SidebarItem
      key={project.id}
      href={projectHref(project.id)}
      current={project.id === currentProjectId}
      icon={<ProjectDot color={project.color} className="mx-0.5" />}
      label={project.name}
      count={project.archived ? undefined : project.taskCount}
      dropProjectId={
        withDrop && project.id !== shownListId && canChangeTasks(project) ? project.id : undefined
      }
      onNavigate={onNavigate}
    />
  );

  return (
    <nav aria-label={PROJECT_COPY.navigation} className="grid gap-5 p-3">
      <ul className="grid gap-0.5">
        <SidebarItem
          href={SCREEN_PATHS.inbox}
          current={screen?.page === 'inbox'}
          icon={<InboxIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />}
          label={PROJECT_COPY.inbox}
          count={inbox?.taskCount}
          dropProjectId={dropTargets && inbox?.id !== shownListId ? inbox?.id : undefined}
          onNavigate={onNavigate}
        />
        <SidebarItem
          href={SCREEN_PATHS.assigned}
          current={screen?.page === 'assigned'}
          icon={<UserCheckIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />}
          label={PROJECT_COPY.assignedToMe}
          onNavigate={onNavigate}
        />
        <SidebarItem
          href={SCREEN_PATHS.today}
          current={screen?.page === 'today'}
          icon={<SunIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />}
          label={VIEW_COPY.today}
          count={todayCount}
          onNavigate={onNavigate}
        />
        <SidebarItem
          href={SCREEN_PATHS.upcoming}
          current={screen?.page === 'upcoming'}
          icon={<CalendarRangeIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />}
          label={VIEW_COPY.upcoming}
          count={upcomingCount}
          onNavigate={onNavigate}
        />
        <SidebarItem
          href={SCREEN_PATHS.calendar}
          current={screen?.page === 'calendar'}
          icon={<CalendarDaysIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />}
          label={VIEW_COPY.calendar}
          onNavigate={onNavigate}
        />
      </ul>

      <section aria-labelledby="sidebar-projects" className="grid gap-1">
        <h2 id="sidebar-projects" className="px-2 text-xs font-medium text-muted-foreground">
          {PROJECT_COPY.projects}
        </h2>
        {isPending ? (
          <div aria-hidden className="grid gap-2 px-2 py-1">
            <Skeleton className="h-5" />
            <Skeleton className="h-5 w-3/4" />
          </div>
        ) : isError && !projects ? (
          <ProjectsLoadError onRetry={() => void refetch()} className="px-2" />
        ) : shown.length > 0 ? (
          <ul className="grid gap-0.5">{shown.map((project) => projectItem(project, dropTargets))}</ul>
        ) : (
          <p className="px-2 py-1 text-sm text-muted-foreground">{PROJECT_COPY.noProjects}</p>
        )}
        <Button
          variant="ghost"
          onClick={() => onNewProject()}
          className="justify-start gap-2.5 px-2 font-normal"
        >
          <PlusIcon aria-hidden className="text-muted-foreground" />
          {PROJECT_COPY.newProject}
        </Button>
        <Button
          variant="ghost"
          onClick={() => onNewProject('new-from-template')}
          className="justify-start gap-2.5 px-2 font-normal"
        >
          <CopyPlusIcon aria-hidden className="text-muted-foreground" />
          {TEMPLATE_COPY.newFromTemplate}
        </Button>
      </section>

      <SavedFilters onNavigate={onNavigate} />
      <SidebarLabels onNavigate={onNavigate} />

      {archived.length > 0 && (
        <ArchivedProjects
          defaultOpen={archived.some((project) => project.id === currentProjectId)}
          count={archived.length}
        >
          {archived.map((project) => projectItem(project, false))}
        </ArchivedProjects>
      )}
    </nav>
  );
}

/** 'Archived projects', folded away until asked for (open when the project shown is one of them). */
function ArchivedProjects({
  defaultOpen,
  count,
  children,
}: {
  defaultOpen: boolean;
  count: number;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <Collapsible.Root open={open} onOpenChange={setOpen} className="grid gap-1">
      <h2 className="text-xs font-medium text-muted-foreground">
        <Collapsible.Trigger className="flex w-full items-center gap-1.5 rounded-md px-2 py-1.5 outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring">
          <ChevronRightIcon
            aria-hidden
            className={cn('size-3.5 transition-transform', open && 'rotate-90')}
          />
          <span className="flex-1 text-left">{PROJECT_COPY.archivedProjects}</span>
          <span className="tabular-nums">
            <span className="sr-only">, </span>
            {count}
          </span>
        </Collapsible.Trigger>
      </h2>
      <Collapsible.Content>
        <ul className="grid gap-0.5">{children}</ul>
      </Collapsible.Content>
    </Collapsible.Root>
  );
}
