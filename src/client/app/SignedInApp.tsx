import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '../lib/query-client';
import { TooltipProvider } from '../ui/tooltip';
import { ArchivePage } from './ArchivePage';
import { KeyboardShortcuts } from './KeyboardShortcuts';
import { MainPage } from './MainPage';

const PAGES = { main: MainPage, archive: ArchivePage };

export type SignedInPage = keyof typeof PAGES;

/**
 * The signed-in screens with the providers only they use. Loaded apart from the signed-out screens,
 * so the login screen does not download the query cache, tooltips or the task list.
 */
export function SignedInApp({ page }: { page: SignedInPage }) {
  const Page = PAGES[page];
  return (
    <QueryClientProvider client={queryClient}>
      <TooltipProvider>
        <Page />
        <KeyboardShortcuts />
      </TooltipProvider>
    </QueryClientProvider>
  );
}
