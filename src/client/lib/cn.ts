import { type ClassValue, clsx } from 'clsx';
import { twMerge } from 'tailwind-merge';

/** Joins class names; on conflicting Tailwind utilities the later one wins, so callers can override. */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}
