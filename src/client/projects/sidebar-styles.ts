/** A sidebar link: a project, the Inbox, a saved filter (the one shown is `aria-current`). */
export const SIDEBAR_LINK_CLASSES =
  'flex min-h-9 items-center gap-2.5 rounded-md px-2 py-1.5 text-sm outline-none transition-colors hover:bg-accent/70 hover:text-accent-foreground focus-visible:ring-2 focus-visible:ring-ring aria-[current=page]:bg-accent aria-[current=page]:font-medium aria-[current=page]:text-accent-foreground';
