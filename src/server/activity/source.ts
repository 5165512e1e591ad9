import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where a change came from, when not the app itself (issue 30): a change made over CalDAV records
 * its activity with `data.via = 'caldav'`, which the activity line shows as '(via CalDAV)'. Carried
 * along like a token's limits (decision 042), so no service's signature has to name it.
 */
export type ChangeSource = 'caldav';

const current = new AsyncLocalStorage<ChangeSource | undefined>();

/** Runs `run` with its changes recorded as coming from `source` (undefined: the app). */
export const withChangeSource = <T>(source: ChangeSource | undefined, run: () => T): T =>
  current.run(source, run);

/** The source of the change being made, if not the app. */
export const changeSource = (): ChangeSource | undefined => current.getStore();
