import { CONFETTI } from '../../common/spec';
import { scriptNotLoaded } from '../lib/app-update';

/**
 * Spec §4: the burst when a task is completed. The library loads on first use, outside the login
 * bundle; if it cannot be loaded (a build replaced since the page opened), there is no burst.
 */
export async function celebrate(): Promise<void> {
  const loaded = await import('canvas-confetti').catch(scriptNotLoaded);
  if (!loaded) return;
  const confetti = loaded.default;
  await confetti({
    particleCount: CONFETTI.particleCount,
    spread: CONFETTI.spread,
    origin: { ...CONFETTI.origin },
    colors: [...CONFETTI.colors],
    disableForReducedMotion: true,
  });
}
