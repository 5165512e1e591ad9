import { PersistQueryClientProvider } from '@tanstack/react-query-persist-client';
import { queryClient } from '../lib/query-client';
import { persistOptions } from '../offline/persist';
import { SignOutQuestion } from '../offline/sign-out';
import { TooltipProvider } from '../ui/tooltip';
import { useMineScope } from '../views/api';
import { CalendarPage } from '../views/CalendarPage';
import { VIEW_COPY } from '../views/copy';
import { TodayPage } from '../views/TodayPage';
import { UpcomingPage } from '../views/UpcomingPage';
import { AppShell } from './AppShell';
import { ArchivePage } from './ArchivePage';
import { AssignedPage } from './AssignedPage';
import { KeyboardShortcuts } from './KeyboardShortcuts';
import { MainPage } from './MainPage';
import { ProjectCalendarPage } from './ProjectCalendarPage';
import { ProjectPage } from './ProjectPage';
import { type Screen, useScreen } from './screens';

/** `/calendar`: Today's and Upcoming's tasks, with their 'Only tasks assigned to me'. */
function MineCalendarPage() {
  return <CalendarPage scope={useMineScope()} title={VIEW_COPY.calendar} />;
}

function ScreenPage({ screen }: { screen: Screen }) {
  switch (screen.page) {
    case 'inbox':
      return <MainPage />;
    case 'archive':
      return <ArchivePage />;
    case 'assigned':
      return <AssignedPage />;
    case 'project':
      // A fresh screen per project: nothing of one project's dialogs or state carries to the next.
      return <ProjectPage key={screen.projectId} projectId={screen.projectId} />;
    case 'today':
      return <TodayPage />;
    case 'upcoming':
      return <UpcomingPage />;
    case 'calendar':
      return <MineCalendarPage />;
    case 'project-calendar':
      return <ProjectCalendarPage key={screen.projectId} projectId={screen.projectId} />;
  }
}

/**
 * The signed-in screens with the providers only they use. The query cache is kept in IndexedDB for
 * a start without a connection (offline/persist.ts). Loaded apart from the signed-out screens,
 * so the login screen does not download the query cache, tooltips or the task list. Mounted once
 * for every signed-in address (app/routes.tsx); the address picks the page inside the shell.
 */
export function SignedInApp() {
  const screen = useScreen();
  if (!screen) return null;
  return (
    <PersistQueryClientProvider client={queryClient} persistOptions={persistOptions}>
      <TooltipProvider>
        <AppShell screen={screen}>
          <ScreenPage screen={screen} />
        </AppShell>
        <KeyboardShortcuts />
        <SignOutQuestion />
      </TooltipProvider>
    </PersistQueryClientProvider>
  );
}
