import { Link } from 'wouter';
import { APP_NAME } from '../../common/spec';
import { LogoMark } from '../ui/logo';
import { SettingsMenu, type SettingsMenuProps } from './SettingsMenu';

/** Shared with the page bodies so the header lines up with their content. */
export const PAGE_WIDTH = 'mx-auto w-full max-w-4xl px-4 sm:px-6';

export function Header(props: SettingsMenuProps) {
  return (
    <header className="sticky top-0 z-40 border-b bg-card/85 backdrop-blur-sm">
      <div className={`${PAGE_WIDTH} flex h-14 items-center justify-between gap-4`}>
        <Link
          href="/"
          className="flex items-center gap-2 rounded-md text-base font-semibold tracking-tight outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-background"
        >
          <LogoMark className="size-7" />
          {APP_NAME}
        </Link>
        <SettingsMenu {...props} />
      </div>
    </header>
  );
}
