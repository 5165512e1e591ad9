import { CONFETTI } from '../../common/spec';

/** Spec §4: the burst when a task is completed. The library loads on first use, outside the login bundle. */
export async function celebrate(): Promise<void> {
  const { default: confetti } = await import('canvas-confetti');
  await confetti({
    particleCount: CONFETTI.particleCount,
    spread: CONFETTI.spread,
    origin: { ...CONFETTI.origin },
    colors: [...CONFETTI.colors],
    disableForReducedMotion: true,
  });
}
