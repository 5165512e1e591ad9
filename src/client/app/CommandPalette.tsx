import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { Command, defaultFilter } from 'cmdk';
import {
  ArchiveIcon,
  BotIcon,
  CalendarDaysIcon,
  CalendarRangeIcon,
  CircleHelpIcon,
  CopyPlusIcon,
  FilterIcon,
  FolderInputIcon,
  FolderPlusIcon,
  InboxIcon,
  KeyboardIcon,
  KeyRoundIcon,
  LayoutTemplateIcon,
  ListTodoIcon,
  ListTreeIcon,
  LogOutIcon,
  MoonIcon,
  PlusIcon,
  SquareCheckBigIcon,
  SunIcon,
  UserCheckIcon,
  UserCogIcon,
  UsersIcon,
} from 'lucide-react';
import { type ReactNode, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import type { Project } from '../../common/projects';
import { COPY } from '../../common/spec';
import type { TaskSummary } from '../../common/tasks';
import { useSavedFilters } from '../labels/api';
import { LABEL_COPY } from '../labels/copy';
import { savedFilterHref } from '../labels/saved-filters';
import { useSession } from '../lib/session';
import { toggleTheme, useTheme } from '../lib/theme';
import { NeedsConnectionNote, useNeedsConnection } from '../offline/connection-status';
import { requestSignOut } from '../offline/sign-out';
import { canChangeTasks, useProjects } from '../projects/api';
import { PROJECT_COPY } from '../projects/copy';
import { projectName } from '../projects/names';
import { ProjectDot } from '../projects/ProjectDot';
import { cachedTask, INBOX_SCOPE, type TaskScope, useActiveTasks } from '../tasks/api';
import {
  ADD_TASK_BUTTON_ID,
  focusAfterRemoval,
  focusedCard,
  isCardShown,
  revealCard,
  showActiveList,
} from '../tasks/card-focus';
import { expandedIds, setExpanded } from '../tasks/list-state';
import { useMoveTask } from '../tasks/move-to-project';
import { requestAddSubtask, SUBTASK_COPY } from '../tasks/subtasks';
import { TEMPLATE_COPY } from '../templates/copy';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '../ui/dialog';
import { VIEW_COPY } from '../views/copy';
import { useOpenAddTask } from './add-task';
import { type AppDialog, closeDialog, openDialog } from './dialogs';
import { projectHref, SCREEN_PATHS, type Screen, useScreen } from './screens';

/** Actions that only the server can do: disabled offline, with the reason (issue 31). */
const NEEDS_CONNECTION = new Set(['share', 'agents', 'users']);

/** How many tasks 'jump to task' lists at most: the best matches, so 10,000 tasks stay quick. */
const MAX_TASKS = 20;

type Action = {
  id: string;
  label: string;
  icon: ReactNode;
  keywords?: string[];
  shortcut?: string;
  run(): void;
};

const itemClasses =
  'flex cursor-default items-center gap-2 rounded-md px-2 py-2 text-sm outline-none select-none data-[selected=true]:bg-accent data-[selected=true]:text-accent-foreground [&_svg]:size-4 [&_svg]:shrink-0 [&_svg]:text-muted-foreground';
const groupClasses =
  '[&_[cmdk-group-heading]]:px-2 [&_[cmdk-group-heading]]:py-1.5 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-muted-foreground';

/** The list the screen shows, for 'jump to task': the archive jumps into the Inbox's list. */
function shownList(screen: Screen | null): { scope: TaskScope; href: string } {
  if (screen?.page === 'project') {
    return { scope: { kind: 'project', projectId: screen.projectId }, href: projectHref(screen.projectId) };
  }
  if (screen?.page === 'assigned') return { scope: { kind: 'assigned' }, href: SCREEN_PATHS.assigned };
  return { scope: INBOX_SCOPE, href: SCREEN_PATHS.inbox };
}

/** The task whose card holds focus (the card itself or a control in it), if any. */
function focusedTask(queryClient: QueryClient): TaskSummary | null {
  const card = focusedCard();
  return card ? (cachedTask(queryClient, Number(card.dataset.taskId)) ?? null) : null;
}

/** The card 'Add sub-task' acts on (issue 29): the focused one, else the last expanded one on the page. */
function subtaskParent(queryClient: QueryClient): TaskSummary | null {
  const focused = focusedTask(queryClient);
  if (focused) return focused;
  const id = expandedIds()
    .reverse()
    .find((candidate) => document.querySelector(`article[data-task-id="${candidate}"]`));
  return id === undefined ? null : (cachedTask(queryClient, id) ?? null);
}

/**
 * Ctrl/Cmd+K (issue 13): the app's actions, 'jump to task' by fuzzy title in the list shown, and
 * (issue 21) every project to go to and, for a focused task, 'Move task to…' a project the person
 * may change tasks in. A chosen action runs once the palette has closed and handed focus back, so a
 * dialog it opens returns focus to where the person was, and a card it jumps to keeps the focus it
 * is given.
 */
export function CommandPalette({ open }: { open: boolean }) {
  const session = useSession();
  const theme = useTheme();
  const [, navigate] = useLocation();
  const screen = useScreen();
  const list = shownList(screen);
  const { data: tasks } = useActiveTasks(list.scope);
  const { data: projects } = useProjects();
  const { data: savedFilters } = useSavedFilters();
  const openAddTask = useOpenAddTask();
  const moveTask = useMoveTask();
  const queryClient = useQueryClient();
  const { offline } = useNeedsConnection();
  const [search, setSearch] = useState('');
  // The task whose card had focus as the palette opened, and whether its projects are listed.
  const [focused, setFocused] = useState<TaskSummary | null>(null);
  const [moving, setMoving] = useState(false);
  const [parentForSubtask, setParentForSubtask] = useState<TaskSummary | null>(null);
  const pending = useRef<(() => void) | null>(null);

  const choose = (action: () => void) => {
    pending.current = action;
    closeDialog('palette');
  };

  const dialog = (name: AppDialog) => () => openDialog(name);
  const onInbox = screen?.page === 'inbox';
  const actions: Action[] = [
    {
      id: 'new-task',
      label: 'New task',
      icon: <PlusIcon aria-hidden />,
      keywords: ['add', 'create'],
      shortcut: 'n',
      run: openAddTask,
    },
    ...(focused
      ? [
          {
            id: 'move-task',
            label: PROJECT_COPY.moveTaskTo,
            icon: <FolderInputIcon aria-hidden />,
            keywords: ['project', focused.title],
            run: () => {
              setSearch('');
              setMoving(true);
            },
          },
        ]
      : []),
    ...(parentForSubtask
      ? [
          {
            id: 'add-subtask',
            label: SUBTASK_COPY.addSubtask,
            icon: <ListTreeIcon aria-hidden />,
            keywords: ['child', 'nest', 'subtask', parentForSubtask.title],
            run: () => {
              // The card expands and opens its sub-task field (issue 29).
              setExpanded(parentForSubtask.id, true);
              requestAddSubtask(parentForSubtask.id);
              void revealCard(parentForSubtask.id);
            },
          },
        ]
      : []),
    {
      id: 'new-project',
      label: PROJECT_COPY.newProject,
      icon: <FolderPlusIcon aria-hidden />,
      keywords: ['add', 'create', 'list'],
      run: dialog('new-project'),
    },
    {
      id: 'new-from-template',
      label: TEMPLATE_COPY.newFromTemplate,
      icon: <CopyPlusIcon aria-hidden />,
      keywords: ['add', 'create', 'project', 'template'],
      run: dialog('new-from-template'),
    },
    ...(screen?.page === 'project'
      ? [
          {
            id: 'share',
            label: 'Share project',
            icon: <UsersIcon aria-hidden />,
            keywords: ['members', 'people', 'invite', 'settings'],
            run: dialog('share'),
          },
          {
            id: 'save-template',
            label: TEMPLATE_COPY.saveAsTemplate,
            icon: <LayoutTemplateIcon aria-hidden />,
            keywords: ['template', 'copy', 'reuse'],
            run: dialog('save-template'),
          },
        ]
      : []),
    onInbox
      ? {
          id: 'archive',
          label: 'Go to archive',
          icon: <ArchiveIcon aria-hidden />,
          keywords: ['completed', 'done'],
          run: () => navigate(SCREEN_PATHS.archive),
        }
      : {
          id: 'tasks',
          label: 'Go to tasks',
          icon: <ListTodoIcon aria-hidden />,
          keywords: ['active', 'home', 'inbox', PROJECT_COPY.inbox],
          shortcut: 'g i',
          run: () => navigate(SCREEN_PATHS.inbox),
        },
    ...(screen?.page === 'assigned'
      ? []
      : [
          {
            id: 'assigned',
            label: `Go to ${PROJECT_COPY.assignedToMe}`,
            icon: <UserCheckIcon aria-hidden />,
            keywords: ['mine', 'assignee'],
            shortcut: 'g a',
            run: () => navigate(SCREEN_PATHS.assigned),
          },
        ]),
    ...(screen?.page === 'today'
      ? []
      : [
          {
            id: 'today',
            label: `Go to ${VIEW_COPY.today}`,
            icon: <SunIcon aria-hidden />,
            keywords: ['due', 'overdue'],
            shortcut: 'g t',
            run: () => navigate(SCREEN_PATHS.today),
          },
        ]),
    ...(screen?.page === 'upcoming'
      ? []
      : [
          {
            id: 'upcoming',
            label: `Go to ${VIEW_COPY.upcoming}`,
            icon: <CalendarRangeIcon aria-hidden />,
            keywords: ['due', 'next', 'week', 'schedule'],
            shortcut: 'g u',
            run: () => navigate(SCREEN_PATHS.upcoming),
          },
        ]),
    ...(screen?.page === 'calendar'
      ? []
      : [
          {
            id: 'calendar',
            label: `Go to ${VIEW_COPY.calendar}`,
            icon: <CalendarDaysIcon aria-hidden />,
            keywords: ['month', 'due'],
            run: () => navigate(SCREEN_PATHS.calendar),
          },
        ]),
    {
      id: 'theme',
      label: theme === 'dark' ? 'Switch to light mode' : 'Switch to dark mode',
      icon: theme === 'dark' ? <SunIcon aria-hidden /> : <MoonIcon aria-hidden />,
      keywords: ['toggle theme', 'dark', 'light'],
      run: toggleTheme,
    },
    { id: 'agents', label: COPY.aiAgents, icon: <BotIcon aria-hidden />, run: dialog('agents') },
    {
      id: 'password',
      label: COPY.changePassword,
      icon: <KeyRoundIcon aria-hidden />,
      run: dialog('password'),
    },
    ...(session?.user.isAdmin
      ? [
          {
            id: 'users',
            label: COPY.manageUsers,
            icon: <UserCogIcon aria-hidden />,
            keywords: ['admin', 'accounts'],
            run: dialog('users'),
          },
        ]
      : []),
    {
      id: 'shortcuts',
      label: 'Keyboard shortcuts',
      icon: <KeyboardIcon aria-hidden />,
      keywords: ['help', 'keys'],
      shortcut: '?',
      run: dialog('shortcuts'),
    },
    {
      id: 'faq',
      label: COPY.faq,
      icon: <CircleHelpIcon aria-hidden />,
      keywords: ['help'],
      run: dialog('faq'),
    },
    {
      id: 'sign-out',
      label: 'Sign out',
      icon: <LogOutIcon aria-hidden />,
      keywords: ['log out', 'logout'],
      run: () => void requestSignOut(),
    },
  ];

  // Scored with cmdk's own fuzzy filter, so the list it shows and sorts holds only the best matches.
  const matches = useMemo(() => {
    const query = search.trim();
    if (!query || !tasks) return [];
    return tasks
      .map((task) => ({ task, score: defaultFilter(task.title, query) }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_TASKS)
      .map(({ task }) => task);
  }, [tasks, search]);

  const jump = (task: Pick<TaskSummary, 'id'>) => () => {
    // The card may be filtered out or on the other screen: the whole list shows it.
    if (!isCardShown(task.id)) {
      navigate(list.href);
      showActiveList();
    }
    void revealCard(task.id);
  };

  /** Moves the focused task; its card leaves the list shown, so focus goes to its neighbour. */
  const moveTo = (task: TaskSummary, project: Project) => () => {
    const card = document.querySelector<HTMLElement>(`article[data-task-id="${task.id}"]`);
    const refocus = focusAfterRemoval(card, () => document.getElementById(ADD_TASK_BUTTON_ID));
    void moveTask(task.id, { id: project.id, name: projectName(project) }).then(
      (moved) => moved && refocus(),
    );
  };

  const goTo = (project: Project) => () =>
    navigate(project.inbox ? SCREEN_PATHS.inbox : projectHref(project.id));
  const targets = focused
    ? (projects ?? []).filter((project) => project.id !== focused.projectId && canChangeTasks(project))
    : [];

  const projectItem = (project: Project, onSelect: () => void, prefix = '') => (
    <Command.Item
      key={project.id}
      // Unique, and still matched by the name.
      value={`${prefix}${projectName(project)} #${project.id}`}
      keywords={project.archived ? ['archived'] : undefined}
      onSelect={onSelect}
      className={itemClasses}
    >
      {project.inbox ? <InboxIcon aria-hidden /> : <ProjectDot color={project.color} className="mx-[3px]" />}
      <span className="flex-1 truncate">{projectName(project)}</span>
      {project.archived && <span className="text-xs text-muted-foreground">{COPY.archived}</span>}
    </Command.Item>
  );

  return (
    <Dialog open={open} onOpenChange={(next) => (next ? openDialog('palette') : closeDialog('palette'))}>
      <DialogContent
        className="top-[15%] translate-y-0 gap-0 overflow-hidden p-0 sm:max-w-xl"
        onOpenAutoFocus={() => {
          // Still on the card: the palette takes focus after this.
          setFocused(focusedTask(queryClient));
          setParentForSubtask(subtaskParent(queryClient));
          setMoving(false);
        }}
        onCloseAutoFocus={() => {
          setSearch('');
          setMoving(false);
          const action = pending.current;
          pending.current = null;
          // After the dialog's own focus return (which runs right after this handler).
          if (action) setTimeout(action, 0);
        }}
      >
        <DialogTitle className="sr-only">Command palette</DialogTitle>
        <DialogDescription className="sr-only">
          {moving && focused
            ? `Choose the project to move “${focused.title}” to; Enter chooses, Backspace goes back.`
            : 'Type to find an action, a project or a task; Enter chooses.'}
        </DialogDescription>
        {/* No vim bindings: Ctrl+K must close the palette, not move up a row. */}
        <Command label="Commands and tasks" loop vimBindings={false} className="flex flex-col">
          {/* The dialog's Close button sits in the right padding, clear of the field (target size). */}
          <div className="border-b pr-12">
            <Command.Input
              value={search}
              onValueChange={setSearch}
              onKeyDown={(event) => {
                if (moving && event.key === 'Backspace' && search === '') {
                  event.preventDefault();
                  setMoving(false);
                }
              }}
              placeholder={
                moving && focused
                  ? `Move “${focused.title}” to…`
                  : "Type a command, a project or a task's title…"
              }
              className="h-12 w-full bg-transparent px-4 text-sm outline-none placeholder:text-muted-foreground"
            />
          </div>
          <Command.List className="max-h-[min(24rem,60dvh)] overflow-y-auto p-2">
            <Command.Empty className="py-6 text-center text-sm text-muted-foreground">
              Nothing matches.
            </Command.Empty>
            {moving && focused ? (
              <Command.Group heading={PROJECT_COPY.moveTaskTo} className={groupClasses}>
                {targets.map((project) => projectItem(project, () => choose(moveTo(focused, project))))}
              </Command.Group>
            ) : (
              <>
                <Command.Group heading="Actions" className={groupClasses}>
                  {actions.map((action) => (
                    <Command.Item
                      key={action.id}
                      value={action.label}
                      keywords={action.keywords}
                      disabled={offline && NEEDS_CONNECTION.has(action.id)}
                      onSelect={() => (action.id === 'move-task' ? action.run() : choose(action.run))}
                      className={`${itemClasses} data-[disabled=true]:opacity-60`}
                    >
                      {action.icon}
                      <span className="flex-1">{action.label}</span>
                      {offline && NEEDS_CONNECTION.has(action.id) && <NeedsConnectionNote />}
                      {action.shortcut && (
                        <kbd className="rounded border bg-muted px-1.5 font-mono text-xs text-muted-foreground">
                          {action.shortcut}
                        </kbd>
                      )}
                    </Command.Item>
                  ))}
                </Command.Group>
                {projects && projects.length > 0 && (
                  <Command.Group heading={PROJECT_COPY.projects} className={groupClasses}>
                    {projects.map((project) => projectItem(project, () => choose(goTo(project)), 'Go to '))}
                  </Command.Group>
                )}
                {savedFilters && savedFilters.length > 0 && (
                  <Command.Group heading={LABEL_COPY.savedFilters} className={groupClasses}>
                    {savedFilters.map((filter) => (
                      <Command.Item
                        key={filter.id}
                        value={`${LABEL_COPY.goToFilter(filter.name)} #${filter.id}`}
                        onSelect={() => choose(() => navigate(savedFilterHref(filter.query)))}
                        className={itemClasses}
                      >
                        <FilterIcon aria-hidden />
                        <span className="flex-1 truncate">{LABEL_COPY.goToFilter(filter.name)}</span>
                      </Command.Item>
                    ))}
                  </Command.Group>
                )}
                {matches.length > 0 && (
                  <Command.Group heading="Jump to task" className={groupClasses}>
                    {matches.map((task) => (
                      <Command.Item
                        key={task.id}
                        // Unique, and still matched by the title.
                        value={`${task.title} #${task.id}`}
                        onSelect={() => choose(jump(task))}
                        className={itemClasses}
                      >
                        <SquareCheckBigIcon aria-hidden />
                        <span className="truncate">{task.title}</span>
                      </Command.Item>
                    ))}
                  </Command.Group>
                )}
              </>
            )}
          </Command.List>
        </Command>
      </DialogContent>
    </Dialog>
  );
}
