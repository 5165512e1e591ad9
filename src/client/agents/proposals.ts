import type { AiProposal, AiRun, ProposalArguments } from '../../common/ai-runs';
import { counted } from '../../common/plural';

const weekday = new Intl.DateTimeFormat('en-GB', { weekday: 'short' });
const dayMonthYear = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' });

/** 'Fri 13 August 2027' for '2027-08-13', read as a calendar date wherever the reader is. */
export function proposalDate(isoDate: string): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  if (!y || !m || !d) return isoDate;
  const date = new Date(y, m - 1, d);
  return `${weekday.format(date)} ${dayMonthYear.format(date)}`;
}

const quoted = (text: string, max = 80) => `‘${text.length > max ? `${text.slice(0, max - 1)}…` : text}’`;
const listed = (titles: string[]) => titles.map((title) => quoted(title, 60)).join(', ');

/** A proposal as one readable line: 'Set due date to Fri 13 August 2027'. */
export function describeProposal({ tool, arguments: args, status }: AiProposal): string {
  if (status === 'invalid') return `${tool.replaceAll('_', ' ')} (not applicable)`;
  switch (tool) {
    case 'set_due_date': {
      const { dueDate } = args as ProposalArguments<'set_due_date'>;
      return dueDate ? `Set due date to ${proposalDate(dueDate)}` : 'Remove the due date';
    }
    case 'rename_task':
      return `Rename to ${quoted((args as ProposalArguments<'rename_task'>).title)}`;
    case 'add_checklist_items': {
      const { items } = args as ProposalArguments<'add_checklist_items'>;
      return `Add ${counted(items.length, 'checklist item', 'checklist items')}: ${listed(items)}`;
    }
    case 'create_tasks': {
      const { tasks } = args as ProposalArguments<'create_tasks'>;
      return `Create ${counted(tasks.length, 'task', 'tasks')}: ${listed(tasks.map((task) => task.title))}`;
    }
    case 'create_subtasks': {
      const { tasks } = args as ProposalArguments<'create_subtasks'>;
      return `Add ${counted(tasks.length, 'sub-task', 'sub-tasks')}: ${listed(tasks.map((task) => task.title))}`;
    }
    case 'append_notes':
      return `Add to notes: ${quoted((args as ProposalArguments<'append_notes'>).text)}`;
    default:
      return tool;
  }
}

/** The pending proposals of a task's runs, oldest first: the order the person reads them in. */
export const pendingProposals = (runs: AiRun[] | undefined): AiProposal[] =>
  (runs ?? [])
    .toReversed()
    .flatMap((run) => run.proposals)
    .filter((proposal) => proposal.status === 'pending');
