import { BellIcon, CalendarIcon, FlagIcon, PlusIcon, RepeatIcon, TagIcon, XIcon } from 'lucide-react';
import { type FormEvent, useRef, useState } from 'react';
import { labelKey } from '../../common/labels';
import { recurrenceText } from '../../common/recurrence';
import { ERRORS, TOASTS } from '../../common/spec';
import { useCreateLabel, useLabels } from '../labels/api';
import { LABEL_COPY, PRIORITY_TEXT } from '../labels/copy';
import { readTags, withoutWords } from '../labels/quick-add-tags';
import { LabelChip } from '../labels/Tags';
import { scriptNotLoaded } from '../lib/app-update';
import { cn } from '../lib/cn';
import { PROJECT_COLOR_STYLES } from '../projects/colors';
import { Input } from '../ui/input';
import { errorToast, successToast } from '../ui/toasts';
import { useViewZone } from '../views/api';
import { addReminder, INBOX_SCOPE, type TaskScope, useCreateTask } from './api';
import { formatDueDate, formatDueTime } from './dates';
import type { QuickAdd as Parsed, parseQuickAdd as ParseQuickAdd } from './quick-add';

type Parser = typeof ParseQuickAdd;

// chrono-node is large: it loads when the field is first used, not with the list. If it cannot be
// loaded (a build replaced since the page opened: the page reloads when safe, decision 048), the
// field shows no chips and saves the words as typed, as it showed them.
let parser: Promise<Parser | null> | undefined;
const loadParser = () => {
  parser ??= import('./quick-add').then(
    (m) => m.parseQuickAdd,
    () => {
      scriptNotLoaded();
      return null;
    },
  );
  return parser;
};

const QUICK_ADD_REMINDER_FAILED = 'The reminder could not be added.';

const NO_DATE: Parsed = { title: '', dueDate: null, dateText: null };

const CHIP_CLASSES =
  'inline-flex h-9 shrink-0 items-center gap-1.5 rounded-md border bg-secondary px-2.5 text-sm text-secondary-foreground outline-none transition-colors hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4';

/**
 * The one-line 'Add a task…' field above the list (issue 13). A date in the text ('Pay rent
 * tomorrow') shows as a chip and leaves the title; removing the chip keeps the words and saves no
 * date. Enter creates the task at the top, as the Add Task dialog does, with the same toast.
 */
export function QuickAdd({ scope = INBOX_SCOPE }: { scope?: TaskScope }) {
  const [text, setText] = useState('');
  const [parse, setParse] = useState<Parser | null>(null);
  // The date words the person took the chip off: those words stay in the title.
  const [dismissed, setDismissed] = useState<string | null>(null);
  // Likewise the repeat words (issue 22), and the reminders' (issue 28).
  const [dismissedRule, setDismissedRule] = useState<string | null>(null);
  const [dismissedReminder, setDismissedReminder] = useState<string | null>(null);
  // 'remind me at 5pm' is 17:00 in the person's zone.
  const zone = useViewZone();
  const inputRef = useRef<HTMLInputElement>(null);
  const create = useCreateTask(scope);
  // Issue 23: priority and label words, and the ones whose chip was taken off (they stay in the title).
  const labels = useLabels().data;
  const createLabel = useCreateLabel();
  const [dismissedTags, setDismissedTags] = useState<string[]>([]);
  const tags = readTags(text);
  const isKept = (tag: { text: string }) => !dismissedTags.includes(tag.text.toLowerCase());
  const dismissTag = (tag: { text: string }) => {
    setDismissedTags((before) => [...before, tag.text.toLowerCase()]);
    inputRef.current?.focus();
  };
  const known = new Map((labels ?? []).map((label) => [labelKey(label.name), label]));
  const priority = tags.priority && isKept(tags.priority) ? tags.priority : null;
  const taggedLabels = tags.labels.filter(isKept).flatMap((tag) => {
    const label = known.get(labelKey(tag.name));
    return label ? [{ tag, label }] : [];
  });
  // A label not made yet waits for its confirmation chip; until then its word is part of the title.
  const newLabels = tags.labels.filter((tag) => isKept(tag) && !known.has(labelKey(tag.name)));
  const line = withoutWords(text, [
    ...(priority ? [priority.text] : []),
    ...taggedLabels.map(({ tag }) => tag.text),
  ]);
  const confirmLabel = async (name: string) => {
    try {
      await createLabel.mutateAsync({ name, color: 'grey' });
    } catch {
      errorToast(LABEL_COPY.createLabelFailed);
    }
    inputRef.current?.focus();
  };

  const loadOnFirstUse = () => {
    if (!parse) void loadParser().then((fn) => fn && setParse(() => fn));
  };

  const parsed = parse ? parse(line, new Date(), zone) : { ...NO_DATE, title: line };
  const ruleKeyOf = (p: Parsed) => (p.recurrence ? `${p.recurrence.text}|${p.recurrence.rule}` : null);
  const dateKeyOf = (p: Parsed) => (p.dueDate ? `${p.dateText}|${p.dueDate}` : null);
  /** What of a reading is kept: a rule needs its date; a date read from the rule goes with it. */
  const kept = (p: Parsed) => {
    const ruleKey = ruleKeyOf(p);
    const dateKey = dateKeyOf(p);
    const ruleDismissed = ruleKey !== null && ruleKey === dismissedRule;
    const dateFromRule = p.recurrence !== undefined && p.dateText === p.recurrence.text;
    const keepDate = dateKey !== null && dateKey !== dismissed && !(ruleDismissed && dateFromRule);
    const keepRule = ruleKey !== null && !ruleDismissed && keepDate;
    const reminderKey = p.reminders ? (p.reminderText ?? null) : null;
    const keepReminders = reminderKey !== null && reminderKey !== dismissedReminder;
    return { ruleKey, dateKey, reminderKey, keepDate, keepRule, keepReminders };
  };
  const {
    ruleKey,
    dateKey,
    reminderKey,
    keepDate: withDate,
    keepRule: withRule,
    keepReminders: withReminders,
  } = kept(parsed);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    // Enter may come before the parser has loaded: read the date now, as the chip would show it.
    const final = (await loadParser())?.(line, new Date(), zone) ?? { ...NO_DATE, title: line };
    const { keepDate, keepRule, keepReminders } = kept(final);
    // Words whose chip was taken off stay in the title; a kept chip's words leave it.
    const dated = keepDate
      ? keepRule || !final.recurrence || final.dateText === final.recurrence.text
        ? final.title
        : `${final.title} ${final.recurrence.text}`
      : (final.undated ?? line);
    const title = keepReminders || !final.reminderText ? dated : `${dated} ${final.reminderText}`;
    if (!title) return;
    let created: Awaited<ReturnType<typeof create.mutateAsync>>;
    try {
      created = await create.mutateAsync({
        title,
        description: '',
        dueDate: keepDate ? final.dueDate! : '',
        contextId: null,
        ...(keepDate && final.dueTime ? { dueTime: final.dueTime } : {}),
        ...(keepRule && final.recurrence
          ? { recurrence: final.recurrence.rule, recurrenceFrom: final.recurrence.from }
          : {}),
        ...(priority ? { priority: priority.value } : {}),
        ...(taggedLabels.length > 0 ? { labelIds: taggedLabels.map(({ label }) => label.id) } : {}),
      });
    } catch {
      errorToast(ERRORS.createTask);
      return;
    }
    successToast(TOASTS.taskCreated);
    setText('');
    setDismissed(null);
    setDismissedRule(null);
    setDismissedReminder(null);
    setDismissedTags([]);
    // Reminders are added once the task exists (POST /api/tasks/{id}/reminders).
    for (const reminder of keepReminders ? (final.reminders ?? []) : []) {
      void addReminder(created, reminder).catch(() => errorToast(QUICK_ADD_REMINDER_FAILED));
    }
  };

  const dueLabel = parsed.dueDate
    ? `${formatDueDate(parsed.dueDate)}${parsed.dueTime ? ` ${formatDueTime(parsed.dueTime)}` : ''}`
    : '';
  const ruleLabel = parsed.recurrence ? recurrenceText(parsed.recurrence.rule) : '';
  const reminderCount = parsed.reminders?.length ?? 0;
  const describedBy = [withDate && 'quick-add-date', withRule && 'quick-add-repeat']
    .filter(Boolean)
    .join(' ');
  return (
    <form onSubmit={(event) => void onSubmit(event)} className="mb-4 flex flex-wrap items-center gap-2">
      <div className="relative min-w-48 flex-1">
        <PlusIcon
          aria-hidden
          className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground"
        />
        <Input
          ref={inputRef}
          name="quickAdd"
          aria-label="Add a task"
          aria-describedby={describedBy || undefined}
          placeholder="Add a task…"
          autoComplete="off"
          enterKeyHint="done"
          value={text}
          onFocus={loadOnFirstUse}
          onChange={(event) => {
            loadOnFirstUse();
            setText(event.target.value);
          }}
          className="pl-8"
        />
      </div>
      {withDate && (
        <button
          type="button"
          id="quick-add-date"
          aria-label={`Remove due date ${dueLabel}`}
          title={`Due ${dueLabel} (from “${parsed.dateText}”)`}
          onClick={() => {
            setDismissed(dateKey);
            inputRef.current?.focus();
          }}
          className="inline-flex h-9 shrink-0 items-center gap-1.5 rounded-md border bg-secondary px-2.5 text-sm text-secondary-foreground outline-none transition-colors hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4"
        >
          <CalendarIcon aria-hidden className="text-muted-foreground" />
          <span>Due {dueLabel}</span>
          <XIcon aria-hidden className="text-muted-foreground" />
        </button>
      )}
      {withRule && (
        <button
          type="button"
          id="quick-add-repeat"
          aria-label={`Remove repeat ${ruleLabel}`}
          title={`${ruleLabel}${parsed.recurrence?.from === 'completion' ? ', from completion' : ''} (from “${parsed.recurrence?.text}”)`}
          onClick={() => {
            setDismissedRule(ruleKey);
            inputRef.current?.focus();
          }}
          className="inline-flex h-9 shrink-0 items-center gap-1.5 rounded-md border bg-secondary px-2.5 text-sm text-secondary-foreground outline-none transition-colors hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring [&_svg]:size-4"
        >
          <RepeatIcon aria-hidden className="text-muted-foreground" />
          <span>{ruleLabel}</span>
          <XIcon aria-hidden className="text-muted-foreground" />
        </button>
      )}
      {priority && (
        <button
          type="button"
          aria-label={LABEL_COPY.removePriority(PRIORITY_TEXT[priority.value].short)}
          title={`${PRIORITY_TEXT[priority.value].long} (from “${priority.text}”)`}
          onClick={() => dismissTag(priority)}
          className={CHIP_CLASSES}
        >
          <FlagIcon aria-hidden className="text-muted-foreground" />
          <span>{PRIORITY_TEXT[priority.value].short}</span>
          <XIcon aria-hidden className="text-muted-foreground" />
        </button>
      )}
      {taggedLabels.map(({ tag, label }) => (
        <button
          key={label.id}
          type="button"
          aria-label={LABEL_COPY.removeLabel(label.name)}
          onClick={() => dismissTag(tag)}
          className={CHIP_CLASSES}
        >
          <LabelChip label={label} />
          <XIcon aria-hidden className="text-muted-foreground" />
        </button>
      ))}
      {newLabels.map((tag) => (
        <button
          key={labelKey(tag.name)}
          type="button"
          disabled={createLabel.isPending}
          onClick={() => void confirmLabel(tag.name)}
          className={cn(CHIP_CLASSES, 'border-dashed', PROJECT_COLOR_STYLES.grey.soft)}
        >
          <TagIcon aria-hidden />
          <span>{LABEL_COPY.createLabel(tag.name)}</span>
        </button>
      ))}
      {withReminders && (
        <button
          type="button"
          aria-label={reminderCount === 1 ? 'Remove reminder' : `Remove ${reminderCount} reminders`}
          title={`From “${parsed.reminderText}”`}
          onClick={() => {
            setDismissedReminder(reminderKey);
            inputRef.current?.focus();
          }}
          className={CHIP_CLASSES}
        >
          <BellIcon aria-hidden className="text-muted-foreground" />
          <span>{reminderCount === 1 ? 'Reminder' : `${reminderCount} reminders`}</span>
          <XIcon aria-hidden className="text-muted-foreground" />
        </button>
      )}
    </form>
  );
}
