import { describe, expect, it } from 'vitest';
import type { AiProposal, AiRun } from '../../common/ai-runs';
import { describeProposal, pendingProposals, proposalDate } from './proposals';

const proposal = (
  tool: string,
  args: unknown,
  status: AiProposal['status'] = 'pending',
  id = 1,
): AiProposal => ({
  id,
  runId: 1,
  taskId: 1,
  tool,
  arguments: args,
  status,
  error: status === 'invalid' ? 'bad' : null,
});

describe('describeProposal', () => {
  it('reads each proposal as one line', () => {
    expect(proposalDate('2027-08-13')).toBe('Fri 13 August 2027');
    expect(describeProposal(proposal('set_due_date', { dueDate: '2027-08-13' }))).toBe(
      'Set due date to Fri 13 August 2027',
    );
    expect(describeProposal(proposal('set_due_date', { dueDate: null }))).toBe('Remove the due date');
    expect(describeProposal(proposal('rename_task', { title: 'Move flat' }))).toBe('Rename to ‘Move flat’');
    expect(describeProposal(proposal('add_checklist_items', { items: ['Book van'] }))).toBe(
      'Add 1 checklist item: ‘Book van’',
    );
    expect(describeProposal(proposal('create_tasks', { tasks: [{ title: 'A' }, { title: 'B' }] }))).toBe(
      'Create 2 tasks: ‘A’, ‘B’',
    );
    expect(describeProposal(proposal('create_subtasks', { tasks: [{ title: 'Book flights' }] }))).toBe(
      'Add 1 sub-task: ‘Book flights’',
    );
    expect(describeProposal(proposal('append_notes', { text: 'x'.repeat(100) }))).toBe(
      `Add to notes: ‘${'x'.repeat(79)}…’`,
    );
    expect(describeProposal(proposal('set_due_date', { dueDate: 'nope' }, 'invalid'))).toBe(
      'set due date (not applicable)',
    );
  });

  it('lists the pending proposals oldest run first', () => {
    const run = (id: number, proposals: AiProposal[]) => ({ id, proposals }) as AiRun;
    const older = run(1, [proposal('rename_task', { title: 'A' }, 'pending', 1)]);
    const newer = run(2, [
      proposal('rename_task', { title: 'B' }, 'applied', 2),
      proposal('rename_task', { title: 'C' }, 'pending', 3),
    ]);
    expect(pendingProposals([newer, older]).map((p) => p.id)).toEqual([1, 3]);
    expect(pendingProposals(undefined)).toEqual([]);
  });
});
