import { useSyncExternalStore } from 'react';
import { THEME_STORAGE_KEY } from '../../common/spec';

export type Theme = 'light' | 'dark';

const listeners = new Set<() => void>();

/** Light unless dark was chosen (spec §1). */
export function getTheme(): Theme {
  return localStorage.getItem(THEME_STORAGE_KEY) === 'dark' ? 'dark' : 'light';
}

function applyStoredTheme(): void {
  document.documentElement.classList.toggle('dark', getTheme() === 'dark');
  for (const listener of listeners) listener();
}

/**
 * Applies the stored theme and follows changes made in other tabs. main.tsx calls it before the first
 * render, so the wrong theme never flashes.
 */
export function startTheme(): void {
  applyStoredTheme();
  window.addEventListener('storage', (event) => {
    if (event.key === null || event.key === THEME_STORAGE_KEY) applyStoredTheme();
  });
}

export function toggleTheme(): void {
  localStorage.setItem(THEME_STORAGE_KEY, getTheme() === 'dark' ? 'light' : 'dark');
  applyStoredTheme();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, getTheme);
}
