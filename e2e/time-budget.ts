/**
 * How long browser tests may take scales with how busy the machine is (issue 20): vitest.config.ts
 * measures the factor once per run and hands it to every file as E2E_TIME_SCALE (1 on an idle
 * machine). Tests wait for states (a response, an element, an animation's end), never for fixed times,
 * so a time-out only says when to give up; stretched, a busy machine makes the suite slower, not red.
 */
const SCALE = Number(process.env.E2E_TIME_SCALE) || 1;

/** A time-out written for an idle machine, stretched for this one. */
export const budget = (ms: number): number => Math.round(ms * SCALE);
