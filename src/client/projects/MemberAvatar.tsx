import { PROJECT_COLORS, type ProjectMember } from '../../common/projects';
import { cn } from '../lib/cn';
import { PROJECT_COLOR_STYLES } from './colors';
import { ROLE_LABELS } from './copy';

/** 'Ana Lopez' → 'AL', 'ben' → 'B': a person's initials, from the name they go by. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words.at(-1)!] : words;
  return letters.map((word) => Array.from(word)[0]!.toUpperCase()).join('') || '?';
}

/** A person as they are named to a screen reader: first name, username, and their role when given. */
export const memberName = ({ firstName, username }: Pick<ProjectMember, 'firstName' | 'username'>) =>
  firstName.trim() && firstName.trim() !== username ? `${firstName.trim()} (${username})` : username;

/**
 * A member's initials in a circle, coloured by who they are (the palette's soft shades keep the
 * letters readable in both themes). An image to assistive technology, named after the person.
 */
export function MemberAvatar({
  member,
  withRole = false,
  className,
}: {
  member: Pick<ProjectMember, 'userId' | 'firstName' | 'username' | 'role'>;
  withRole?: boolean;
  className?: string;
}) {
  const color = PROJECT_COLORS[member.userId % PROJECT_COLORS.length]!;
  const name = withRole ? `${memberName(member)}, ${ROLE_LABELS[member.role]}` : memberName(member);
  return (
    <span
      role="img"
      aria-label={name}
      title={name}
      className={cn(
        'inline-flex size-8 shrink-0 items-center justify-center rounded-full text-xs font-semibold select-none',
        PROJECT_COLOR_STYLES[color].soft,
        className,
      )}
    >
      {initialsOf(member.firstName.trim() || member.username)}
    </span>
  );
}
