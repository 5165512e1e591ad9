import { useQuery } from '@tanstack/react-query';
import { CALENDAR_FEED_PATH, type CalendarFeedStatus, type CalendarFeedUrl } from '../../common/calendar';
import { IMPORT_FIELD, IMPORT_PATH, type ImportFailure, type ImportResult } from '../../common/data';
import { apiRequest, errorStatus } from '../lib/api';

/** The calendar feed and import/export (issue 13): fetchers and query keys. */

export const calendarFeedKey = [CALENDAR_FEED_PATH] as const;
export const useCalendarFeed = () =>
  useQuery<CalendarFeedStatus>({ queryKey: calendarFeedKey, refetchOnMount: 'always' });

export const createCalendarFeed = async () =>
  (await (await apiRequest('POST', CALENDAR_FEED_PATH)).json()) as CalendarFeedUrl;

export const turnOffCalendarFeed = async () => {
  await apiRequest('DELETE', CALENDAR_FEED_PATH);
};

/** The answer of an import, or of a file it could not read (400 with the line). */
export type ImportOutcome = { ok: true; result: ImportResult } | { ok: false; failure: ImportFailure };

export async function importFile(file: File, dryRun: boolean): Promise<ImportOutcome> {
  const form = new FormData();
  form.append(IMPORT_FIELD, file);
  try {
    const response = await apiRequest('POST', `${IMPORT_PATH}${dryRun ? '?dryRun=true' : ''}`, form);
    return { ok: true, result: (await response.json()) as ImportResult };
  } catch (error) {
    if (errorStatus(error) === 400) {
      const body = (error as Error).message.replace(/^400: /, '');
      try {
        const failure = JSON.parse(body) as ImportFailure;
        if (Array.isArray(failure.errors)) return { ok: false, failure };
      } catch {
        // Not the import's own answer: the caller reports it.
      }
    }
    throw error;
  }
}
