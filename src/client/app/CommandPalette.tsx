import { Command, defaultFilter } from 'cmdk';
import {
  ArchiveIcon,
  BotIcon,
  CircleHelpIcon,
  KeyboardIcon,
  KeyRoundIcon,
  ListTodoIcon,
  LogOutIcon,
  MoonIcon,
  PlusIcon,
  SquareCheckBigIcon,
  SunIcon,
  UserCogIcon,
} from 'lucide-react';
import { type ReactNode, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { COPY } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { signOut } from '../auth/api';
import { useSession } from '../lib/session';
import { toggleTheme, useTheme } from '../lib/theme';
import { useActiveTasks } from '../tasks/api';
import { isCardShown, revealCard, showActiveList } from '../tasks/card-focus';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '../ui/dialog';
import { type AppDialog, closeDialog, openDialog } from './dialogs';

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

/**
 * Ctrl/Cmd+K (issue 13): the app's actions and 'jump to task' by fuzzy title, in a modal dialog.
 * A chosen action runs once the palette has closed and handed focus back, so a dialog it opens
 * returns focus to where the person was, and a card it jumps to keeps the focus it is given.
 */
export function CommandPalette({ open }: { open: boolean }) {
  const session = useSession();
  const theme = useTheme();
  const [location, navigate] = useLocation();
  const { data: tasks } = useActiveTasks();
  const [search, setSearch] = useState('');
  const pending = useRef<(() => void) | null>(null);

  const choose = (action: () => void) => {
    pending.current = action;
    closeDialog('palette');
  };

  const dialog = (name: AppDialog) => () => openDialog(name);
  const onMain = location === '/';
  const actions: Action[] = [
    {
      id: 'new-task',
      label: 'New task',
      icon: <PlusIcon aria-hidden />,
      keywords: ['add', 'create'],
      shortcut: 'n',
      run: () => {
        if (!onMain) navigate('/');
        openDialog('add-task');
      },
    },
    onMain
      ? {
          id: 'archive',
          label: 'Go to archive',
          icon: <ArchiveIcon aria-hidden />,
          keywords: ['completed', 'done'],
          run: () => navigate('/archive'),
        }
      : {
          id: 'tasks',
          label: 'Go to tasks',
          icon: <ListTodoIcon aria-hidden />,
          keywords: ['active', 'home'],
          run: () => navigate('/'),
        },
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
      run: () => void signOut(),
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

  const jump = (task: Pick<Task, 'id' | 'archived'>) => () => {
    // The card may be filtered out or on the other screen: the whole list shows it.
    if (!isCardShown(task.id)) {
      navigate('/');
      showActiveList();
    }
    void revealCard(task.id);
  };

  return (
    <Dialog open={open} onOpenChange={(next) => (next ? openDialog('palette') : closeDialog('palette'))}>
      <DialogContent
        className="top-[15%] translate-y-0 gap-0 overflow-hidden p-0 sm:max-w-xl"
        onCloseAutoFocus={() => {
          setSearch('');
          const action = pending.current;
          pending.current = null;
          // After the dialog's own focus return (which runs right after this handler).
          if (action) setTimeout(action, 0);
        }}
      >
        <DialogTitle className="sr-only">Command palette</DialogTitle>
        <DialogDescription className="sr-only">
          Type to find an action or jump to a task; Enter chooses.
        </DialogDescription>
        {/* No vim bindings: Ctrl+K must close the palette, not move up a row. */}
        <Command label="Commands and tasks" loop vimBindings={false} className="flex flex-col">
          {/* The dialog's Close button sits in the right padding, clear of the field (target size). */}
          <div className="border-b pr-12">
            <Command.Input
              value={search}
              onValueChange={setSearch}
              placeholder="Type a command or a task's title…"
              className="h-12 w-full bg-transparent px-4 text-sm outline-none placeholder:text-muted-foreground"
            />
          </div>
          <Command.List className="max-h-[min(24rem,60dvh)] overflow-y-auto p-2">
            <Command.Empty className="py-6 text-center text-sm text-muted-foreground">
              Nothing matches.
            </Command.Empty>
            <Command.Group heading="Actions" className={groupClasses}>
              {actions.map((action) => (
                <Command.Item
                  key={action.id}
                  value={action.label}
                  keywords={action.keywords}
                  onSelect={() => choose(action.run)}
                  className={itemClasses}
                >
                  {action.icon}
                  <span className="flex-1">{action.label}</span>
                  {action.shortcut && (
                    <kbd className="rounded border bg-muted px-1.5 font-mono text-xs text-muted-foreground">
                      {action.shortcut}
                    </kbd>
                  )}
                </Command.Item>
              ))}
            </Command.Group>
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
          </Command.List>
        </Command>
      </DialogContent>
    </Dialog>
  );
}
