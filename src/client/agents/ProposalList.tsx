import { CheckIcon, ListChecksIcon, XIcon } from 'lucide-react';
import { useRef, useState } from 'react';
import { AI_RUN_COPY, type AiProposal } from '../../common/ai-runs';
import { errorMessage } from '../lib/api';
import { rescueFocusAfterRender } from '../lib/focus';
import { Button } from '../ui/button';
import { errorToast, successToast } from '../ui/toasts';
import { useAiRuns, useDecideProposal } from './api';
import { describeProposal, pendingProposals } from './proposals';

/**
 * The changes the task's agent runs proposed and the person has not yet decided on, each on one
 * readable line with Apply and Dismiss; 'Apply all' when there are two or more. Nothing changes
 * until a proposal is applied, and then as an ordinary edit.
 */
export function ProposalList({ taskId, onEmpty }: { taskId: number; onEmpty: () => HTMLElement | null }) {
  const runs = useAiRuns(taskId);
  const decide = useDecideProposal(taskId);
  const [busy, setBusy] = useState(false);
  const listRef = useRef<HTMLUListElement>(null);
  const pending = pendingProposals(runs.data);
  if (pending.length === 0) return null;

  /** Focus goes to the next proposal's Apply button, else back to where the run started. */
  const keepFocus = (index: number) =>
    rescueFocusAfterRender(() => {
      const buttons = listRef.current?.querySelectorAll<HTMLButtonElement>('[data-decision="apply"]');
      return buttons?.[Math.min(index, buttons.length - 1)] ?? onEmpty();
    });

  const run = async (proposal: AiProposal, index: number, decision: 'apply' | 'dismiss') => {
    setBusy(true);
    try {
      await decide.mutateAsync({ id: proposal.id, decision });
      if (decision === 'apply') successToast([AI_RUN_COPY.applied, describeProposal(proposal)]);
      else successToast([AI_RUN_COPY.dismissed, describeProposal(proposal)]);
    } catch (error) {
      errorToast(errorMessage(error, 'Please try again.'), AI_RUN_COPY.notApplied);
    } finally {
      setBusy(false);
      keepFocus(index);
    }
  };

  const applyAll = async () => {
    setBusy(true);
    let applied = 0;
    try {
      for (const proposal of pending) {
        await decide.mutateAsync({ id: proposal.id, decision: 'apply' });
        applied += 1;
      }
      successToast([AI_RUN_COPY.appliedAll(applied), 'The task has been updated.']);
    } catch (error) {
      errorToast(errorMessage(error, 'Please try again.'), AI_RUN_COPY.notApplied);
    } finally {
      setBusy(false);
      keepFocus(0);
    }
  };

  return (
    <section aria-label={AI_RUN_COPY.proposals} className="grid gap-2 rounded-lg border bg-card p-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="flex items-center gap-1.5 text-sm font-medium">
          <ListChecksIcon aria-hidden className="size-4 text-primary" />
          {AI_RUN_COPY.proposals}
        </h3>
        {pending.length >= 2 && (
          <Button size="sm" disabled={busy} onClick={() => void applyAll()}>
            <CheckIcon aria-hidden />
            {AI_RUN_COPY.applyAll}
          </Button>
        )}
      </div>
      <ul ref={listRef} className="grid gap-1.5">
        {pending.map((proposal, index) => {
          const line = describeProposal(proposal);
          return (
            <li
              key={proposal.id}
              className="flex flex-wrap items-center gap-2 rounded-md bg-muted/40 px-2 py-1.5 text-sm"
            >
              <span className="min-w-0 flex-1 break-words">{line}</span>
              <span className="flex gap-1">
                <Button
                  size="sm"
                  variant="secondary"
                  data-decision="apply"
                  aria-label={`${AI_RUN_COPY.apply}: ${line}`}
                  disabled={busy}
                  onClick={() => void run(proposal, index, 'apply')}
                >
                  {AI_RUN_COPY.apply}
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`${AI_RUN_COPY.dismiss}: ${line}`}
                  disabled={busy}
                  onClick={() => void run(proposal, index, 'dismiss')}
                >
                  <XIcon aria-hidden />
                  {AI_RUN_COPY.dismiss}
                </Button>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
