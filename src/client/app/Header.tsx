import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { APP_NAME } from '../../common/spec';
import { NotificationBell } from '../notifications/NotificationBell';
import { ConnectionStatus } from '../offline/connection-status';
import { LogoMark } from '../ui/logo';
import { SettingsMenu, type SettingsMenuProps } from './SettingsMenu';

/** The width of a screen's content, beside the sidebar: a list's reading width, or all of it (the board, the calendar). */
export const pageWidth = (wide: boolean) =>
  `mx-auto w-full ${wide ? 'max-w-[100rem]' : 'max-w-4xl'} px-4 sm:px-6`;

/**
 * Across the top of every signed-in screen: `navigation` (the drawer's button on a phone), the name,
 * the connection's status (issue 31: 'Offline', 'Syncing…'), the bell, the menu.
 */
export function Header({ navigation, ...props }: SettingsMenuProps & { navigation?: ReactNode }) {
  return (
    <header className="sticky top-0 z-40 border-b bg-card/85 backdrop-blur-sm">
      <div className="flex h-14 items-center justify-between gap-4 px-4 sm:px-6 lg:px-5">
        <div className="flex min-w-0 items-center gap-2">
          {navigation}
          <Link
            href="/"
            className="flex items-center gap-2 rounded-md text-base font-semibold tracking-tight outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-background"
          >
            <LogoMark className="size-7" />
            {APP_NAME}
          </Link>
        </div>
        <div className="flex min-w-0 items-center gap-2">
          <ConnectionStatus />
          <NotificationBell />
          <SettingsMenu {...props} />
        </div>
      </div>
    </header>
  );
}
