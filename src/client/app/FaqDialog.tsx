import { APP_NAME, COPY } from '../../common/spec';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '../ui/accordion';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';

/** Spec §2: exactly six questions, in this order. */
const QUESTIONS = [
  {
    question: `What is ${APP_NAME}?`,
    answer: `${APP_NAME} is a task manager you host yourself. Keep a list of tasks with descriptions, due dates, notes and files, put them in the order you work in by dragging, and tick them off when done. AI agents can draft the work for any task. It works from the keyboard too: Ctrl+K (⌘K on a Mac) opens the command palette, and ? shows every keyboard shortcut.`,
  },
  {
    question: 'How do AI agents work?',
    answer:
      'An agent is a set of instructions you write once, such as "Draft a friendly reply to this customer". Assign an agent to a task and press AI Draft: the task\'s title and description go to the AI model together with the agent\'s instructions, and the answer comes back as a draft on the task. Review it, then move it into your notes or delete it. AI Draft appears once an AI provider key is connected.',
  },
  {
    question: 'Can I attach files to a task?',
    answer:
      'Yes. Add files while creating a task, or later from the files badge on the task card, where each file can also be downloaded or deleted. Your files are visible only to you.',
  },
  {
    question: 'How do I write good agent instructions?',
    answer:
      'Say what the agent should produce, for whom and in what form: the tone, the length, the structure. Give an example if you can, and say what to do when the task leaves something out. Short, concrete instructions work better than long, vague ones.',
  },
  {
    question: 'Can I use a different agent for each task?',
    answer:
      'Yes. Open a task and pick another agent, or No Agent, in its agent picker. The next AI draft for that task uses the agent you picked; drafts and notes already on the task stay as they are.',
  },
  {
    question: 'What happens to completed tasks?',
    answer:
      'Completing a task moves it to the archive, with its notes and files. Find it under the Archived tab or on the archive page, and restore it to your active list whenever you need it again.',
  },
] as const;

export function FaqDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>{COPY.faq}</DialogTitle>
          <DialogDescription>Answers to common questions about {APP_NAME}.</DialogDescription>
        </DialogHeader>
        <Accordion type="single" collapsible>
          {QUESTIONS.map(({ question, answer }) => (
            <AccordionItem key={question} value={question}>
              <AccordionTrigger>{question}</AccordionTrigger>
              <AccordionContent>{answer}</AccordionContent>
            </AccordionItem>
          ))}
        </Accordion>
      </DialogContent>
    </Dialog>
  );
}
