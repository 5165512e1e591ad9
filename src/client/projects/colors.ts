import type { ProjectColor } from '../../common/projects';

/**
 * How each of the palette's twelve named colours looks (src/common/projects.ts): `dot` is the
 * swatch beside a project's name, a shade that stands out on the light and on the dark background;
 * `soft` is a background with text on it (members' initials), whose pairs keep WCAG AA contrast in
 * both themes. Class names are written out whole so Tailwind finds them.
 */
export const PROJECT_COLOR_STYLES: Record<ProjectColor, { label: string; dot: string; soft: string }> = {
  red: {
    label: 'Red',
    dot: 'bg-red-500 dark:bg-red-400',
    soft: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200',
  },
  orange: {
    label: 'Orange',
    dot: 'bg-orange-500 dark:bg-orange-400',
    soft: 'bg-orange-100 text-orange-900 dark:bg-orange-950 dark:text-orange-200',
  },
  yellow: {
    label: 'Yellow',
    dot: 'bg-yellow-400 dark:bg-yellow-300',
    soft: 'bg-yellow-100 text-yellow-900 dark:bg-yellow-950 dark:text-yellow-200',
  },
  green: {
    label: 'Green',
    dot: 'bg-green-600 dark:bg-green-400',
    soft: 'bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200',
  },
  teal: {
    label: 'Teal',
    dot: 'bg-teal-500 dark:bg-teal-400',
    soft: 'bg-teal-100 text-teal-900 dark:bg-teal-950 dark:text-teal-200',
  },
  cyan: {
    label: 'Cyan',
    dot: 'bg-cyan-500 dark:bg-cyan-300',
    soft: 'bg-cyan-100 text-cyan-900 dark:bg-cyan-950 dark:text-cyan-200',
  },
  blue: {
    label: 'Blue',
    dot: 'bg-blue-600 dark:bg-blue-400',
    soft: 'bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200',
  },
  indigo: {
    label: 'Indigo',
    dot: 'bg-indigo-600 dark:bg-indigo-400',
    soft: 'bg-indigo-100 text-indigo-900 dark:bg-indigo-950 dark:text-indigo-200',
  },
  violet: {
    label: 'Violet',
    dot: 'bg-violet-600 dark:bg-violet-400',
    soft: 'bg-violet-100 text-violet-900 dark:bg-violet-950 dark:text-violet-200',
  },
  pink: {
    label: 'Pink',
    dot: 'bg-pink-500 dark:bg-pink-400',
    soft: 'bg-pink-100 text-pink-900 dark:bg-pink-950 dark:text-pink-200',
  },
  brown: {
    label: 'Brown',
    dot: 'bg-amber-800 dark:bg-amber-700',
    soft: 'bg-amber-200 text-amber-950 dark:bg-amber-900 dark:text-amber-100',
  },
  grey: {
    label: 'Grey',
    dot: 'bg-zinc-500 dark:bg-zinc-400',
    soft: 'bg-zinc-200 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100',
  },
};
