import {
  BellIcon,
  BotIcon,
  CalendarDaysIcon,
  ChevronDownIcon,
  CircleHelpIcon,
  CircleUserRoundIcon,
  DownloadIcon,
  Globe2Icon,
  KeyRoundIcon,
  LogOutIcon,
  MoonIcon,
  PlugIcon,
  ShieldCheckIcon,
  SunIcon,
  UploadIcon,
  UserCogIcon,
  WebhookIcon,
} from 'lucide-react';
import { lazy, useRef } from 'react';
import { COPY } from '../../common/spec';
import { WEBHOOK_COPY } from '../../common/webhooks';
import { useSession } from '../lib/session';
import { toggleTheme, useTheme } from '../lib/theme';
import { NeedsConnectionNote, useNeedsConnection } from '../offline/connection-status';
import { requestSignOut } from '../offline/sign-out';
import { Button } from '../ui/button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../ui/dropdown-menu';
import { LazyPart } from '../ui/lazy';
import { type AppDialog, dialogControl, openDialog, useDialogState } from './dialogs';

// Each dialog loads the first time it opens, keeping the main screen's first load small.
const UserManagementDialog = lazy(() =>
  import('../admin/UserManagementDialog').then((m) => ({ default: m.UserManagementDialog })),
);
const AgentsDialog = lazy(() => import('../agents/AgentsDialog').then((m) => ({ default: m.AgentsDialog })));
const ConnectAiDialog = lazy(() =>
  import('../agents/ConnectAiDialog').then((m) => ({ default: m.ConnectAiDialog })),
);
const FaqDialog = lazy(() => import('./FaqDialog').then((m) => ({ default: m.FaqDialog })));
const ChangePasswordDialog = lazy(() =>
  import('../auth/ChangePasswordDialog').then((m) => ({ default: m.ChangePasswordDialog })),
);

const SecurityDialog = lazy(() =>
  import('../security/SecurityDialog').then((m) => ({ default: m.SecurityDialog })),
);

const IntegrationsDialog = lazy(() =>
  import('../webhooks/IntegrationsDialog').then((m) => ({ default: m.IntegrationsDialog })),
);

const NotificationsDialog = lazy(() =>
  import('../notifications/NotificationsDialog').then((m) => ({ default: m.NotificationsDialog })),
);

const CalendarFeedDialog = lazy(() =>
  import('../transfer/CalendarFeedDialog').then((m) => ({ default: m.CalendarFeedDialog })),
);
const ExportDialog = lazy(() =>
  import('../transfer/ExportDialog').then((m) => ({ default: m.ExportDialog })),
);
const TimeZoneDialog = lazy(() => import('./TimeZoneDialog').then((m) => ({ default: m.TimeZoneDialog })));
const ImportDialog = lazy(() =>
  import('../transfer/ImportDialog').then((m) => ({ default: m.ImportDialog })),
);

type DialogName = Extract<
  AppDialog,
  | 'users'
  | 'agents'
  | 'connect-ai'
  | 'faq'
  | 'password'
  | 'security'
  | 'integrations'
  | 'notifications'
  | 'calendar'
  | 'export'
  | 'import'
  | 'time-zone'
>;

export type SettingsMenuProps = {
  /** False on the archive page, whose menu offers neither (spec §2). */
  withLogoutAndTheme?: boolean;
};

/**
 * The header's menu: the signed-in user's name, the dialogs, the theme and logging out (spec §2).
 * It renders the account dialogs, which the command palette opens too (through `./dialogs`).
 */
export function SettingsMenu({ withLogoutAndTheme = true }: SettingsMenuProps) {
  const session = useSession();
  const theme = useTheme();
  const { open: openName, mounted } = useDialogState();
  const triggerRef = useRef<HTMLButtonElement>(null);
  // What only the server can do (the admin screen, AI, uploads) waits for a connection (issue 31).
  const { offline } = useNeedsConnection();
  const needsConnection = offline ? <NeedsConnectionNote className="ml-auto" /> : null;

  if (!session) return null;
  const { user } = session;
  const name = user.isAdmin ? `${user.username} ${COPY.adminSuffix}` : user.username;

  // The menu item that opens a dialog is gone once it closes, so the dialog cannot hand focus back
  // by itself: focus returns to the menu's button.
  const show = (dialog: DialogName) => openDialog(dialog, triggerRef.current);
  const dialogProps = (dialog: DialogName) => dialogControl(dialog, openName);

  return (
    <>
      {/* Not modal: a modal menu hides the header and page with aria-hidden while they stay
          focusable (axe aria-hidden-focus); focus moves into the menu and Escape returns it. */}
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          <Button ref={triggerRef} variant="outline" aria-label={`Settings for ${name}`} className="max-w-64">
            <CircleUserRoundIcon aria-hidden className="text-muted-foreground" />
            <span className="truncate">{name}</span>
            <ChevronDownIcon aria-hidden className="text-muted-foreground" />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="w-56">
          <DropdownMenuLabel className="truncate font-normal text-muted-foreground">
            Signed in as <span className="font-medium text-foreground">{user.username}</span>
          </DropdownMenuLabel>
          <DropdownMenuSeparator />
          {user.isAdmin && (
            <DropdownMenuItem disabled={offline} onSelect={() => show('users')}>
              <UserCogIcon aria-hidden />
              {COPY.manageUsers}
              {needsConnection}
            </DropdownMenuItem>
          )}
          <DropdownMenuItem disabled={offline} onSelect={() => show('agents')}>
            <BotIcon aria-hidden />
            {COPY.aiAgents}
            {needsConnection}
          </DropdownMenuItem>
          <DropdownMenuItem disabled={offline} onSelect={() => show('connect-ai')}>
            <PlugIcon aria-hidden />
            Connect AI
            {needsConnection}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('faq')}>
            <CircleHelpIcon aria-hidden />
            {COPY.faq}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('password')}>
            <KeyRoundIcon aria-hidden />
            {COPY.changePassword}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('security')}>
            <ShieldCheckIcon aria-hidden />
            {COPY.security}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('integrations')}>
            <WebhookIcon aria-hidden />
            {WEBHOOK_COPY.menuItem}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('notifications')}>
            <BellIcon aria-hidden />
            Notifications
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('time-zone')}>
            <Globe2Icon aria-hidden />
            Time zone
            {user.timeZone && (
              <span className="ml-auto max-w-24 truncate text-xs text-muted-foreground">{user.timeZone}</span>
            )}
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('calendar')}>
            <CalendarDaysIcon aria-hidden />
            Calendar feed
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => show('export')}>
            <DownloadIcon aria-hidden />
            Export my data
          </DropdownMenuItem>
          <DropdownMenuItem disabled={offline} onSelect={() => show('import')}>
            <UploadIcon aria-hidden />
            Import tasks
            {needsConnection}
          </DropdownMenuItem>
          {withLogoutAndTheme && (
            <>
              <DropdownMenuSeparator />
              <DropdownMenuItem onSelect={toggleTheme}>
                {theme === 'dark' ? <SunIcon aria-hidden /> : <MoonIcon aria-hidden />}
                {theme === 'dark' ? 'Light Mode' : 'Dark Mode'}
              </DropdownMenuItem>
              <DropdownMenuItem
                variant="destructive"
                onSelect={() => void requestSignOut(triggerRef.current)}
              >
                <LogOutIcon aria-hidden />
                {COPY.logOut}
              </DropdownMenuItem>
            </>
          )}
        </DropdownMenuContent>
      </DropdownMenu>
      <LazyPart>
        {mounted.has('users') && user.isAdmin && <UserManagementDialog {...dialogProps('users')} />}
        {mounted.has('agents') && <AgentsDialog {...dialogProps('agents')} />}
        {mounted.has('connect-ai') && <ConnectAiDialog {...dialogProps('connect-ai')} />}
        {mounted.has('faq') && <FaqDialog {...dialogProps('faq')} />}
        {mounted.has('password') && <ChangePasswordDialog {...dialogProps('password')} />}
        {mounted.has('security') && <SecurityDialog {...dialogProps('security')} />}
        {mounted.has('integrations') && <IntegrationsDialog {...dialogProps('integrations')} />}
        {mounted.has('notifications') && <NotificationsDialog {...dialogProps('notifications')} />}
        {mounted.has('calendar') && <CalendarFeedDialog {...dialogProps('calendar')} />}
        {mounted.has('export') && <ExportDialog {...dialogProps('export')} />}
        {mounted.has('import') && <ImportDialog {...dialogProps('import')} />}
        {mounted.has('time-zone') && <TimeZoneDialog {...dialogProps('time-zone')} />}
      </LazyPart>
    </>
  );
}
