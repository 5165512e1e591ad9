import type { ProjectColor } from '../../common/projects';
import { cn } from '../lib/cn';
import { PROJECT_COLOR_STYLES } from './colors';

/** A project's colour as a dot beside its name: decoration, the name says which project it is. */
export function ProjectDot({ color, className }: { color: ProjectColor; className?: string }) {
  return (
    <span
      aria-hidden
      className={cn('size-2.5 shrink-0 rounded-full', PROJECT_COLOR_STYLES[color].dot, className)}
    />
  );
}
