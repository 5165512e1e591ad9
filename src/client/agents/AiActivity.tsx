import { HistoryIcon } from 'lucide-react';
import { useState } from 'react';
import { AI_RUN_COPY, type AiRun } from '../../common/ai-runs';
import { counted } from '../../common/plural';
import { Button } from '../ui/button';
import { useAiRuns } from './api';
import { describeProposal } from './proposals';

/** Runs shown before 'Show all N runs'. */
const FIRST_RUNS = 3;

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const seconds = (ms: number | null) => (ms === null ? null : `${(ms / 1000).toFixed(1)} s`);

/** One run on one line: agent, model, status, tokens, time. */
function runLine(run: AiRun): string {
  return [
    run.agentTitle ?? 'No agent',
    run.model,
    AI_RUN_COPY.statuses[run.status],
    counted(run.inputTokens + run.outputTokens, 'token', 'tokens'),
    seconds(run.durationMs),
    when.format(new Date(run.startedAt)),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** 'AI activity' in the expanded card: each run of the task's agents, newest first. */
export function AiActivity({ taskId }: { taskId: number }) {
  const runs = useAiRuns(taskId);
  const [all, setAll] = useState(false);
  if (!runs.data || runs.data.length === 0) return null;
  const shown = all ? runs.data : runs.data.slice(0, FIRST_RUNS);

  return (
    <section aria-label={AI_RUN_COPY.activity} className="grid gap-2">
      <h3 className="flex items-center gap-1.5 text-sm font-medium">
        <HistoryIcon aria-hidden className="size-4 text-muted-foreground" />
        {AI_RUN_COPY.activity}
      </h3>
      <ul className="grid gap-1 text-xs text-muted-foreground">
        {shown.map((run) => {
          const invalid = run.proposals.filter((proposal) => proposal.status === 'invalid');
          return (
            <li key={run.id} className="grid gap-0.5">
              <span className="break-words">{runLine(run)}</span>
              {run.error && <span className="break-words text-destructive">{run.error}</span>}
              {[...run.notes, ...invalid.map((p) => `${describeProposal(p)}: ${p.error}`)].map((note) => (
                <span key={note} className="pl-3 break-words">
                  {note}
                </span>
              ))}
            </li>
          );
        })}
      </ul>
      {!all && runs.data.length > FIRST_RUNS && (
        <Button
          variant="link"
          size="sm"
          className="h-auto justify-self-start px-0"
          onClick={() => setAll(true)}
        >
          {AI_RUN_COPY.showAllRuns(runs.data.length)}
        </Button>
      )}
    </section>
  );
}
