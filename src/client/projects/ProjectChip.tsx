import { createContext, useContext } from 'react';
import { Link } from 'wouter';
import { projectHref } from '../app/screens';
import { cn } from '../lib/cn';
import { badgeVariants } from '../ui/badge';
import { useProjects } from './api';
import { ProjectDot } from './ProjectDot';

/**
 * The project a list shows (its cards need not name it); none where a list spans projects (Today,
 * Upcoming, 'Assigned to me'), whose cards each name theirs.
 */
export const ListProjectContext = createContext<number | undefined>(undefined);

/** On a card, the project its task is in, as a link there; nothing for the Inbox or the list's own project. */
export function ProjectChip({ projectId }: { projectId: number }) {
  const shown = useContext(ListProjectContext);
  const project = useProjects().data?.find((candidate) => candidate.id === projectId);
  if (!project || project.inbox || project.id === shown) return null;
  return (
    <Link
      href={projectHref(project.id)}
      className={cn(
        badgeVariants({ variant: 'outline' }),
        'max-w-48 font-normal text-muted-foreground outline-none hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring',
      )}
    >
      <ProjectDot color={project.color} />
      <span className="sr-only">Project: </span>
      <span className="truncate">{project.name}</span>
    </Link>
  );
}
