import { MenuIcon } from 'lucide-react';
import { lazy, type ReactNode, useEffect, useRef, useState } from 'react';
import { useLiveUpdates } from '../lib/live';
import { useMediaQuery } from '../lib/media';
import { useOpenTaskFromAddress } from '../notifications/open-task';
import { resendSubscription } from '../notifications/push';
import { PROJECT_COPY } from '../projects/copy';
import { Sidebar } from '../projects/Sidebar';
import { useScopeProjectId } from '../sections/api';
import { useShownTaskView } from '../sections/view';
import { INBOX_SCOPE, type TaskScope } from '../tasks/api';
import { TaskDragContext } from '../tasks/TaskDragContext';
import { Button } from '../ui/button';
import { LazyPart } from '../ui/lazy';
import { Sheet, SheetContent, SheetTitle, SheetTrigger } from '../ui/sheet';
import { dialogControl, getDialogState, openDialog, useDialogState } from './dialogs';
import { Header, pageWidth } from './Header';
import { focusScreenHeading, type Screen } from './screens';

const NewProjectDialog = lazy(() =>
  import('../projects/NewProjectDialog').then((m) => ({ default: m.NewProjectDialog })),
);
const NewFromTemplateDialog = lazy(() =>
  import('../templates/NewFromTemplateDialog').then((m) => ({ default: m.NewFromTemplateDialog })),
);

/** Wide enough for the sidebar beside the list (Tailwind's lg); narrower, it is a drawer. */
const SIDEBAR_BESIDE = '(min-width: 64rem)';

/** The list whose view (List or Board) `screen` shows, if any. */
function listScope(screen: Screen): TaskScope {
  if (screen.page === 'project') return { kind: 'project', projectId: screen.projectId };
  // The lists across projects have no board: 'mine' stands for any of them.
  return screen.page === 'inbox' ? INBOX_SCOPE : { kind: 'mine' };
}

/**
 * What every signed-in screen shares, mounted once while the person moves between them: the header,
 * the sidebar (issue 21; a drawer on a phone), the live updates and the drag-and-drop context the
 * list and the sidebar's projects share.
 */
export function AppShell({ screen, children }: { screen: Screen; children: ReactNode }) {
  useLiveUpdates();
  useOpenTaskFromAddress();
  useEffect(() => {
    resendSubscription().catch(() => undefined);
  }, []);
  const beside = useMediaQuery(SIDEBAR_BESIDE);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // A link in the drawer was followed: the new screen's heading takes focus, not the menu button.
  const followed = useRef(false);
  const { open, mounted } = useDialogState();
  // The board's columns and the calendar's month use the whole width; a list keeps a reading width.
  const view = useShownTaskView(useScopeProjectId(listScope(screen)));
  const wide = view === 'board' || screen.page === 'project-calendar' || screen.page === 'calendar';

  const newProject = (dialog: 'new-project' | 'new-from-template' = 'new-project') => {
    setDrawerOpen(false);
    // From the drawer, which is closing: focus comes back to the menu button.
    openDialog(dialog, beside ? null : menuButton.current);
  };

  const drawer = (
    <Sheet open={drawerOpen} onOpenChange={setDrawerOpen}>
      <SheetTrigger asChild>
        <Button
          ref={menuButton}
          variant="ghost"
          size="icon"
          aria-label={PROJECT_COPY.openNavigation}
          className="-ml-2"
        >
          <MenuIcon aria-hidden />
        </Button>
      </SheetTrigger>
      <SheetContent
        aria-describedby={undefined}
        onCloseAutoFocus={(event) => {
          // Another dialog opened from the drawer keeps the focus it took.
          if (getDialogState().open !== null) event.preventDefault();
          else if (followed.current) {
            event.preventDefault();
            focusScreenHeading();
          }
          followed.current = false;
        }}
      >
        <SheetTitle className="sr-only">{PROJECT_COPY.navigation}</SheetTitle>
        <div className="pt-10">
          <Sidebar
            dropTargets={false}
            onNavigate={() => {
              followed.current = true;
              setDrawerOpen(false);
            }}
            onNewProject={newProject}
          />
        </div>
      </SheetContent>
    </Sheet>
  );

  return (
    <>
      <Header withLogoutAndTheme={screen.page !== 'archive'} navigation={beside ? undefined : drawer} />
      <TaskDragContext>
        {beside && (
          <aside className="fixed top-14 bottom-0 left-0 z-30 w-64 overflow-y-auto border-r bg-card/60">
            <Sidebar dropTargets onNewProject={newProject} />
          </aside>
        )}
        <div className={beside ? 'pl-64' : undefined}>
          <main className={`${pageWidth(wide)} py-8`}>{children}</main>
        </div>
      </TaskDragContext>
      <LazyPart>
        {mounted.has('new-project') && <NewProjectDialog {...dialogControl('new-project', open)} />}
        {mounted.has('new-from-template') && (
          <NewFromTemplateDialog {...dialogControl('new-from-template', open)} />
        )}
      </LazyPart>
    </>
  );
}
