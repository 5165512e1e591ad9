import { useId } from 'react';
import { QueryList } from '../ui/section';
import { activitySentence, formatMoment } from './activity';
import { useActivity } from './api';

export const ACTIVITY_COPY = { heading: 'Activity', empty: 'Nothing has happened yet.' } as const;

/** What happened to the task, newest first, each as a short sentence (issue 21). */
export function ActivityList({ taskId }: { taskId: number }) {
  const headingId = useId();
  const activity = useActivity(taskId);
  return (
    <section aria-labelledby={headingId} className="grid gap-2">
      <h3 id={headingId} className="text-sm leading-none font-medium">
        {ACTIVITY_COPY.heading}
      </h3>
      <QueryList query={activity} what="the activity" empty={ACTIVITY_COPY.empty}>
        {(entries) =>
          entries.map((entry) => (
            <li key={entry.id} className="flex flex-wrap items-baseline gap-x-2 text-sm">
              <span>{activitySentence(entry)}</span>
              <time dateTime={entry.at} className="text-xs text-muted-foreground">
                {formatMoment(entry.at)}
              </time>
            </li>
          ))
        }
      </QueryList>
    </section>
  );
}
