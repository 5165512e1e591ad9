import { useQueryClient } from '@tanstack/react-query';
import { ArrowDownToLineIcon, Loader2Icon, SparklesIcon, Trash2Icon } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { COPY, ERRORS, TOASTS } from '../../common/spec';
import type { Task } from '../../common/tasks';
import { errorStatus, serverMessage } from '../lib/api';
import { rescueFocus, rescueFocusAfterRender } from '../lib/focus';
import { useNeedsConnection } from '../offline/connection-status';
import { invalidateTask, useUpdateTask } from '../tasks/api';
import { CardTooltip } from '../tasks/CardTooltip';
import { Button } from '../ui/button';
import { Label } from '../ui/label';
import { errorToast, successToast } from '../ui/toasts';
import { toast } from '../ui/use-toast';
import { AgentSelect, agentLabel } from './AgentSelect';
import { AiActivity } from './AiActivity';
import { AiRunError, aiRunsKey, streamAiDraft, useAiContexts, useAiStatus } from './api';
import { ProposalList } from './ProposalList';

/**
 * The AI part of a task card's expanded panel, above the notes (spec §2): the agent picker, the
 * 'AI Draft' button (only when AI is connected), the busy indicator while a run streams in, the
 * draft box with its delete and move-to-notes controls, the changes the runs proposed, and the
 * task's AI activity. A role that may not change the task (viewer, commenter: issue 28) reads the
 * draft and the AI activity, with none of the controls.
 */
export function TaskAiPanel({
  task,
  editable,
  onMovedToNotes,
}: {
  task: Task;
  /** The caller may change the task (useTaskPermissions): pick the agent, run it, decide on its results. */
  editable: boolean;
  /** The draft is now in the notes: the card moves focus there. */
  onMovedToNotes: () => void;
}) {
  const pickerId = useId();
  const queryClient = useQueryClient();
  const status = useAiStatus();
  // An AI run needs the server (issue 31).
  const aiRun = useNeedsConnection();
  const contexts = useAiContexts();
  const { mutateAsync: update, isPending: updating } = useUpdateTask(task.id);
  const [running, setRunning] = useState(false);
  /** The draft as it streams in; null when the stored draft is what shows. */
  const [streamed, setStreamed] = useState<string | null>(null);
  const run = useRef<AbortController | null>(null);
  // Collapsing the card or leaving the page unmounts the panel: the run is cancelled, nothing is stored.
  useEffect(() => () => run.current?.abort(), []);
  const runButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const draftRegion = useRef<HTMLElement>(null);
  const pickerRef = useRef<HTMLSelectElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const [focusDraft, setFocusDraft] = useState(false);
  /** After the draft goes away: the AI Draft button, or the picker when AI is not connected. */
  const focusRunControls = () => rescueFocusAfterRender(() => runButton.current ?? pickerRef.current);

  const changeAgent = async (contextId: number | null) => {
    try {
      await update({ contextId });
    } catch {
      errorToast(ERRORS.updateContext);
      return;
    }
    const name =
      contextId === null
        ? COPY.noAgentLower
        : agentLabel(contexts.data, contextId) === COPY.unknownAgent
          ? COPY.unknownAgentLower
          : agentLabel(contexts.data, contextId);
    toast({ title: TOASTS.contextUpdated, description: TOASTS.contextSwitched(name) });
  };

  const execute = async () => {
    const controller = new AbortController();
    run.current = controller;
    flushSync(() => {
      setRunning(true);
      setStreamed('');
    });
    // 'AI Draft' disables itself while the run goes on: Cancel is the control that matters now.
    rescueFocus(cancelButton.current);
    let succeeded = false;
    let drafted = false;
    try {
      const result = await streamAiDraft(
        {
          taskTitle: task.title,
          taskDescription: task.description,
          contextId: task.contextId,
          taskId: task.id,
        },
        { signal: controller.signal, onDelta: (delta) => setStreamed((text) => (text ?? '') + delta) },
      );
      await Promise.all([
        invalidateTask(queryClient, task.id),
        queryClient.invalidateQueries({ queryKey: aiRunsKey(task.id) }),
      ]);
      succeeded = true;
      drafted = result.trim() !== '';
      successToast(TOASTS.taskExecuted);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (errorStatus(error) === 400 && serverMessage(error) === ERRORS.aiNotConnected) {
        errorToast(ERRORS.aiNotConnected, ERRORS.aiNotConnectedTitle);
      } else {
        // The server's reason (the provider's status and words, a time-out, a limit) is what lets the
        // person fix a wrong model name or a spent quota.
        const reason = error instanceof AiRunError ? error.message : serverMessage(error);
        errorToast(reason ? `${ERRORS.aiExecute}. ${reason}` : ERRORS.aiExecute, ERRORS.aiErrorTitle);
      }
    } finally {
      // A failed or cancelled run is in the AI activity too.
      void queryClient.invalidateQueries({ queryKey: aiRunsKey(task.id) });
      if (run.current === controller) run.current = null;
      flushSync(() => {
        setRunning(false);
        setStreamed(null);
      });
      // The result when there is one (once the stored draft shows), or the first proposed change when
      // the run only proposed changes, else the button that starts another run.
      if (drafted) setFocusDraft(true);
      else if (succeeded)
        rescueFocusAfterRender(
          () => panelRef.current?.querySelector<HTMLElement>('[data-decision="apply"]') ?? runButton.current,
        );
      else focusRunControls();
    }
  };

  const deleteDraft = async () => {
    try {
      await update({ aiDraft: null, aiAssisted: false });
    } catch {
      errorToast(ERRORS.deleteDraft);
      return;
    }
    focusRunControls();
    successToast(TOASTS.draftDeleted);
  };

  const moveToNotes = async () => {
    const draft = task.aiDraft ?? '';
    try {
      // Spec §4: appended after a blank line, or the notes themselves when there are none.
      await update({
        notes: task.notes ? `${task.notes}\n\n${draft}` : draft,
        aiDraft: null,
        aiAssisted: false,
      });
    } catch {
      errorToast(ERRORS.moveDraft);
      return;
    }
    onMovedToNotes();
    successToast(TOASTS.draftMoved);
  };

  const draft = streamed ?? task.aiDraft;
  // After every render: the stored draft shows once the task has been refetched, a render or two later.
  useEffect(() => {
    if (!focusDraft || !draftRegion.current) return;
    setFocusDraft(false);
    rescueFocus(draftRegion.current);
  });
  const aiConnected = status.data?.aiConnected === true;

  return (
    <div ref={panelRef} className="grid gap-3">
      {editable && (
        <div className="flex flex-wrap items-end gap-3">
          <div className="grid min-w-48 flex-1 gap-2 sm:max-w-64">
            <Label htmlFor={pickerId}>Agent</Label>
            <AgentSelect
              ref={pickerRef}
              id={pickerId}
              value={task.contextId}
              onChange={(value) => void changeAgent(value)}
              disabled={running || updating}
            />
          </div>
          {aiConnected && (
            <Button
              ref={runButton}
              onClick={() => void execute()}
              disabled={running || aiRun.offline}
              aria-describedby={aiRun.control['aria-describedby']}
            >
              <SparklesIcon aria-hidden />
              {COPY.aiDraft}
            </Button>
          )}
          {aiConnected && aiRun.note && <span className="self-center">{aiRun.note}</span>}
        </div>
      )}

      {running && (
        <div
          role="status"
          className="flex items-center gap-3 rounded-lg border border-primary/30 bg-primary/5 px-3 py-2 text-sm"
        >
          <Loader2Icon aria-hidden className="size-4 animate-spin text-primary" />
          <span className="flex-1">{COPY.aiBusy}</span>
          <Button ref={cancelButton} variant="ghost" size="sm" onClick={() => run.current?.abort()}>
            Cancel
          </Button>
        </div>
      )}

      {draft !== null && (running || draft) && (
        <section
          ref={draftRegion}
          aria-label={COPY.aiDraft}
          // Focusable by script only: focus lands on the finished draft.
          tabIndex={-1}
          className="grid gap-2 rounded-lg border bg-muted/40 p-3 outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <div className="flex items-center justify-between gap-2">
            <h3 className="flex items-center gap-1.5 text-sm font-medium">
              <SparklesIcon aria-hidden className="size-4 text-primary" />
              {COPY.aiDraft}
            </h3>
            {!running && editable && (
              <div className="flex items-center gap-1">
                <Button variant="ghost" size="sm" disabled={updating} onClick={() => void moveToNotes()}>
                  <ArrowDownToLineIcon aria-hidden />
                  Move to Notes
                </Button>
                <CardTooltip content={COPY.deleteDraft}>
                  <Button
                    variant="ghost"
                    size="icon"
                    aria-label={COPY.deleteDraft}
                    disabled={updating}
                    onClick={() => void deleteDraft()}
                    className="size-8 text-muted-foreground hover:bg-destructive/10 hover:text-destructive"
                  >
                    <Trash2Icon aria-hidden />
                  </Button>
                </CardTooltip>
              </div>
            )}
          </div>
          <div
            aria-live={running ? 'polite' : undefined}
            className="max-h-80 overflow-y-auto text-sm leading-relaxed break-words whitespace-pre-wrap"
          >
            {draft}
          </div>
        </section>
      )}

      {editable && <ProposalList taskId={task.id} onEmpty={() => runButton.current ?? pickerRef.current} />}
      <AiActivity taskId={task.id} />
    </div>
  );
}
