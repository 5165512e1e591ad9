import { zodResolver } from '@hookform/resolvers/zod';
import { BotIcon, PencilIcon, Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { type Agent, agentBodySchema } from '../../common/agents';
import { COPY, ERRORS } from '../../common/spec';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { Skeleton } from '../ui/skeleton';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../ui/tabs';
import { Textarea } from '../ui/textarea';
import { errorToast } from '../ui/toasts';
import { useAgents, useDeleteAgent, useSaveAgent } from './api';

/** Spec §2: the AI Agents dialog, with Manage Agents and Tutorial tabs. */
export function AgentsDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>{COPY.aiAgents}</DialogTitle>
          <DialogDescription>
            Write agents once, then assign them to tasks to draft work for you.
          </DialogDescription>
        </DialogHeader>
        <Tabs defaultValue="manage" className="min-w-0">
          <TabsList className="grid w-full grid-cols-2">
            <TabsTrigger value="manage">{COPY.manageAgents}</TabsTrigger>
            <TabsTrigger value="tutorial">{COPY.tutorial}</TabsTrigger>
          </TabsList>
          <TabsContent value="manage" className="grid gap-6 pt-2">
            <ManageAgents />
          </TabsContent>
          <TabsContent value="tutorial" className="pt-2">
            <Tutorial />
          </TabsContent>
        </Tabs>
      </DialogContent>
    </Dialog>
  );
}

const EMPTY = { title: '', prompt: '', model: '' };

function ManageAgents() {
  const agents = useAgents();
  const save = useSaveAgent();
  const remove = useDeleteAgent();
  const [editing, setEditing] = useState<Agent | null>(null);
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(agentBodySchema), defaultValues: EMPTY });

  const startEditing = (agent: Agent) => {
    setEditing(agent);
    reset({ title: agent.title, prompt: agent.prompt, model: agent.model ?? '' });
  };
  const stopEditing = () => {
    setEditing(null);
    reset(EMPTY);
  };

  const onSubmit = handleSubmit(async (body) => {
    try {
      await save.mutateAsync({ ...body, id: editing?.id });
    } catch {
      errorToast(ERRORS.saveAgent);
      return;
    }
    stopEditing();
  });

  const deleteAgent = async (agent: Agent) => {
    try {
      await remove.mutateAsync(agent.id);
    } catch {
      errorToast(ERRORS.deleteAgent);
      return;
    }
    if (editing?.id === agent.id) stopEditing();
  };

  return (
    <>
      <form onSubmit={onSubmit} noValidate className="grid gap-4 rounded-lg border p-4">
        <h3 className="text-sm font-medium">{editing ? `Edit “${editing.title}”` : 'New Agent'}</h3>
        <FormField label="Title" error={errors.title?.message}>
          <Input autoComplete="off" placeholder="e.g. Blog Editor" {...register('title')} />
        </FormField>
        <FormField label="Instructions" error={errors.prompt?.message}>
          <Textarea
            rows={5}
            placeholder="Describe the agent's role, goal, output format and any rules it must follow."
            className="max-h-64"
            {...register('prompt')}
          />
        </FormField>
        <FormField label="Model (optional)" error={errors.model?.message}>
          <Input
            autoComplete="off"
            spellCheck={false}
            placeholder="Your connection's model"
            {...register('model')}
          />
        </FormField>
        <div className="flex justify-end gap-2">
          {editing && (
            <Button variant="outline" onClick={stopEditing}>
              Cancel
            </Button>
          )}
          <SubmitButton pending={isSubmitting}>{editing ? 'Save Changes' : 'Create Agent'}</SubmitButton>
        </div>
      </form>

      <section aria-labelledby="agents-list-heading" className="grid gap-3">
        <h3 id="agents-list-heading" className="text-sm font-medium">
          Your Agents
        </h3>
        {agents.isPending ? (
          <Skeleton className="h-16 w-full" />
        ) : agents.data?.length ? (
          <ul className="grid gap-2">
            {agents.data.map((agent) => (
              <li key={agent.id} className="flex items-start gap-3 rounded-lg border bg-card p-3">
                <BotIcon aria-hidden className="mt-0.5 size-4 shrink-0 text-primary" />
                <div className="grid min-w-0 flex-1 gap-1">
                  <p className="truncate text-sm font-medium">
                    {agent.title}
                    {agent.model && (
                      <span className="font-normal text-muted-foreground"> · {agent.model}</span>
                    )}
                  </p>
                  <p className="line-clamp-2 text-sm break-words text-muted-foreground">{agent.prompt}</p>
                </div>
                <div className="flex shrink-0 items-center">
                  <Button
                    variant="ghost"
                    size="icon"
                    className="size-8"
                    aria-label={`Edit ${agent.title}`}
                    onClick={() => startEditing(agent)}
                  >
                    <PencilIcon aria-hidden />
                  </Button>
                  <ConfirmButton
                    title="Delete this agent?"
                    description={`“${agent.title}” will be removed. Tasks that use it will have no agent.`}
                    confirmLabel="Delete"
                    onConfirm={() => void deleteAgent(agent)}
                  >
                    <Button
                      variant="ghost"
                      size="icon"
                      className="size-8 hover:bg-destructive/10 hover:text-destructive"
                      aria-label={`Delete ${agent.title}`}
                    >
                      <Trash2Icon aria-hidden />
                    </Button>
                  </ConfirmButton>
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p className="rounded-lg border border-dashed p-4 text-center text-sm text-muted-foreground">
            No agents yet. Create your first one above.
          </p>
        )}
      </section>
    </>
  );
}

/** How to write instructions that work, in a few practical steps. */
function Tutorial() {
  const steps: Array<[string, string]> = [
    ['Give it a role', 'Say who the agent is: “You are a senior copy editor for a software blog.”'],
    ['State the goal', 'Say what a good result achieves: “Turn the task into a publishable first draft.”'],
    [
      'Fix the format',
      'Describe the shape of the answer: headings, a bulleted list, a table, a word count, the tone.',
    ],
    [
      'Set the limits',
      'Name what to avoid or always do: “Use plain English. Never invent numbers. Ask for missing facts at the end.”',
    ],
    ['Show an example', 'A short sample of the output you want teaches more than a paragraph of rules.'],
  ];
  return (
    <div className="grid gap-5 text-sm">
      <p className="text-muted-foreground">
        An agent’s instructions are sent to the AI before each task you run with it; the task’s title and
        description follow. Clear instructions give drafts you can use as they are.
      </p>
      <ol className="grid gap-3">
        {steps.map(([title, text], index) => (
          <li key={title} className="flex gap-3">
            <span className="flex size-6 shrink-0 items-center justify-center rounded-full bg-primary/10 text-xs font-semibold text-primary">
              {index + 1}
            </span>
            <div>
              <p className="font-medium">{title}</p>
              <p className="text-muted-foreground">{text}</p>
            </div>
          </li>
        ))}
      </ol>
      <div className="grid gap-2">
        <p className="font-medium">Example</p>
        <pre className="rounded-lg border bg-muted/50 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap">
          {`You are a project planner for a small team.
Goal: turn the task into a plan someone can start on today.
Format: a one-line summary, then 3 to 7 numbered steps, each with an estimate in hours.
Rules: keep steps concrete; flag any risk in a final "Risks" line; no more than 200 words.`}
        </pre>
      </div>
      <p className="text-muted-foreground">
        Tip: keep one agent per kind of work (writing, planning, research) and switch agents on a task from
        its card.
      </p>
    </div>
  );
}
