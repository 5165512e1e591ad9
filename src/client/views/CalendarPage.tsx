import { Draggable, Droppable } from '@hello-pangea/dnd';
import { ChevronLeftIcon, ChevronRightIcon, ListIcon } from 'lucide-react';
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import { addDays } from '../../common/due';
import type { TaskSummary } from '../../common/tasks';
import { projectHref } from '../app/screens';
import { cn } from '../lib/cn';
import { useDocumentTitle } from '../lib/document-title';
import { useMediaQuery } from '../lib/media';
import { useTaskLink } from '../notifications/open-task';
import { useTaskPermissions } from '../projects/api';
import { type TaskScope, useDueTasks } from '../tasks/api';
import { LoadError } from '../tasks/EmptyState';
import { ParentLink } from '../tasks/SubtaskMeta';
import { Button } from '../ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../ui/dialog';
import { PageHeading } from '../ui/page-heading';
import { useViewZone } from './api';
import { VIEW_COPY } from './copy';
import { dayDroppableId, tasksByDay, useDayDrop } from './DayTasks';
import {
  dayAfterKey,
  dayHeading,
  firstDayOfWeek,
  longDayHeading,
  monthGrid,
  monthHeading,
  monthOf,
  shiftMonth,
  todayIn,
  weekdayNames,
} from './days';
import { OnlyAssignedControl } from './OnlyAssignedControl';

/** Wide enough for the month's grid (Tailwind's md); narrower, the month is an agenda list. */
const GRID_WIDTH = '(min-width: 48rem)';
/** Tasks a day's cell shows; the rest are counted ('+2 more', which opens the day). */
const CELL_TASKS = 3;

const chipClasses =
  'block min-h-6 truncate rounded-md bg-accent/70 px-1.5 py-1 text-xs leading-4 text-accent-foreground outline-none hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring';

/**
 * A task in a day's cell: a link to its card, and what is dragged to another day by those who may
 * change the task (issue 28: a viewer's or commenter's chip is only a link).
 */
function TaskChip({ task, index }: { task: TaskSummary; index: number }) {
  const link = useTaskLink()({ projectId: task.projectId, taskId: task.id });
  const movable = useTaskPermissions(task.projectId).change;
  return (
    <Draggable draggableId={String(task.id)} index={index} isDragDisabled={!movable}>
      {(provided, snapshot) => (
        <a
          ref={provided.innerRef}
          {...provided.draggableProps}
          {...(movable ? provided.dragHandleProps : {})}
          // The library makes the handle a button; it is a link that can also be dragged.
          // biome-ignore lint/a11y/noRedundantRoles: undoes the library's role="button"
          role="link"
          href={link.href}
          onClick={link.onClick}
          data-task-id={task.id}
          className={cn(chipClasses, 'mb-1', snapshot.isDragging && 'shadow-lg ring-2 ring-ring/40')}
        >
          {task.dueTime && <span className="mr-1 tabular-nums">{task.dueTime}</span>}
          {task.title}
        </a>
      )}
    </Draggable>
  );
}

type CellProps = {
  day: string;
  today: string;
  inMonth: boolean;
  tasks: TaskSummary[];
  focusable: boolean;
  onKeyDown: (event: KeyboardEvent<HTMLTableCellElement>) => void;
  onFocusDay: () => void;
  onOpen: () => void;
};

function DayCell({ day, today, inMonth, tasks, focusable, onKeyDown, onFocusDay, onOpen }: CellProps) {
  const label = VIEW_COPY.dayLabel(dayHeading(day, today), tasks.length);
  const hidden = tasks.length - CELL_TASKS;
  return (
    <td
      tabIndex={focusable ? 0 : -1}
      aria-label={label}
      aria-current={day === today ? 'date' : undefined}
      data-day={day}
      onKeyDown={onKeyDown}
      onFocus={(event) => event.target === event.currentTarget && onFocusDay()}
      className={cn(
        'h-28 min-w-0 border-t border-l p-1 align-top outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset',
        !inMonth && 'bg-muted/40',
      )}
    >
      <span
        aria-hidden
        className={cn(
          'mb-1 inline-flex size-6 items-center justify-center rounded-full text-xs tabular-nums',
          inMonth ? 'text-foreground' : 'text-muted-foreground',
          day === today && 'bg-primary font-semibold text-primary-foreground',
        )}
      >
        {Number(day.slice(8))}
      </span>
      <Droppable droppableId={dayDroppableId(day)}>
        {(provided, snapshot) => (
          <div
            ref={provided.innerRef}
            {...provided.droppableProps}
            // The day's whole cell below its number takes a drop, not just the strip its chips fill.
            className={cn('min-h-19 rounded-md', snapshot.isDraggingOver && 'bg-accent/60')}
          >
            {tasks.slice(0, CELL_TASKS).map((task, index) => (
              <TaskChip key={task.id} task={task} index={index} />
            ))}
            {provided.placeholder}
          </div>
        )}
      </Droppable>
      {hidden > 0 && (
        <button
          type="button"
          tabIndex={-1}
          onClick={onOpen}
          className="px-1.5 text-xs text-muted-foreground hover:text-foreground"
        >
          {VIEW_COPY.moreTasks(hidden)}
        </button>
      )}
    </td>
  );
}

/** The month's grid: arrow keys move between days (the month follows), Enter opens a day. */
function MonthGrid({
  month,
  today,
  byDay,
  onMonth,
  onOpen,
}: {
  month: string;
  today: string;
  byDay: Map<string, TaskSummary[]>;
  onMonth: (month: string) => void;
  onOpen: (day: string) => void;
}) {
  const firstDay = useMemo(() => firstDayOfWeek(), []);
  const weeks = useMemo(() => monthGrid(month, firstDay), [month, firstDay]);
  const [focused, setFocused] = useState(monthOf(today) === month ? today : `${month}-01`);
  const moved = useRef(false);
  const grid = useRef<HTMLTableElement>(null);
  // The focused day follows the month shown, when it is not in it.
  const inMonth = monthOf(focused) === month;
  const active = inMonth ? focused : monthOf(today) === month ? today : `${month}-01`;

  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    grid.current?.querySelector<HTMLElement>(`[data-day="${active}"]`)?.focus();
  }, [active]);

  const onKeyDown = (day: string) => (event: KeyboardEvent<HTMLTableCellElement>) => {
    if (event.target !== event.currentTarget) return;
    if (event.key === 'Enter') {
      event.preventDefault();
      onOpen(day);
      return;
    }
    const next = dayAfterKey(day, event.key, firstDay);
    if (next === null) return;
    event.preventDefault();
    moved.current = true;
    setFocused(next);
    if (monthOf(next) !== month) onMonth(monthOf(next));
  };

  return (
    <table
      ref={grid}
      // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the APG's date grid, a table whose days the arrow keys move between
      role="grid"
      aria-label={monthHeading(month)}
      aria-describedby="calendar-hint"
      className="w-full table-fixed border-separate border-spacing-0 overflow-hidden rounded-xl border-r border-b bg-card"
    >
      <thead>
        <tr>
          {weekdayNames(firstDay).map((name) => (
            <th
              key={name.long}
              scope="col"
              abbr={name.long}
              className="border-t border-l px-2 py-1.5 text-left text-xs font-medium text-muted-foreground"
            >
              {name.short}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {weeks.map((week) => (
          <tr key={week[0]}>
            {week.map((day) => (
              <DayCell
                key={day}
                day={day}
                today={today}
                inMonth={monthOf(day) === month}
                tasks={byDay.get(day) ?? []}
                focusable={day === active}
                onKeyDown={onKeyDown(day)}
                onFocusDay={() => setFocused(day)}
                onOpen={() => onOpen(day)}
              />
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A day's tasks as links (the day dialog, the agenda). */
function DayTaskLinks({ tasks, onFollow }: { tasks: TaskSummary[]; onFollow?: () => void }) {
  const linkOf = useTaskLink();
  return (
    <ul className="grid gap-1.5">
      {tasks.map((task) => {
        const link = linkOf({ projectId: task.projectId, taskId: task.id });
        return (
          <li key={task.id}>
            <a
              href={link.href}
              onClick={(event) => {
                link.onClick(event);
                onFollow?.();
              }}
              className="flex gap-2 rounded-md border bg-card px-3 py-2 text-sm outline-none hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring"
            >
              {task.dueTime && <span className="tabular-nums text-muted-foreground">{task.dueTime}</span>}
              <span className="min-w-0 flex-1 truncate">{task.title}</span>
            </a>
            {/* Issue 29: a sub-task names its parent, a link of its own beside the task's. */}
            {task.parentId !== null && (
              <div className="px-3 pt-0.5">
                <ParentLink task={task} />
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** At a phone's width: the month's days that have tasks, one after the other. */
function Agenda({
  month,
  today,
  byDay,
}: {
  month: string;
  today: string;
  byDay: Map<string, TaskSummary[]>;
}) {
  const days = [...byDay.keys()].filter((day) => monthOf(day) === month).sort();
  if (days.length === 0) return <p className="py-6 text-sm text-muted-foreground">{VIEW_COPY.agendaEmpty}</p>;
  return (
    <div className="grid gap-5">
      {days.map((day) => (
        <section key={day} aria-labelledby={`agenda-${day}`} data-day={day}>
          <h2 id={`agenda-${day}`} className="mb-2 text-sm font-semibold">
            {dayHeading(day, today)}
          </h2>
          <DayTaskLinks tasks={byDay.get(day) ?? []} />
        </section>
      ))}
    </div>
  );
}

type CalendarPageProps = {
  scope: TaskScope;
  /** The screen's heading: 'Calendar', or the project's name. */
  title: string;
  /** A project's calendar links back to its list. */
  projectId?: number;
};

/**
 * The calendar (issue 23): a month of due tasks, the week starting on the locale's first day, at
 * `/calendar` (Today's scope and its 'Only tasks assigned to me', useMineScope) or
 * `/projects/{id}/calendar`. A task dragged to another day is due that day; arrow keys move between
 * days and Enter opens one. At a phone's width it is an agenda list.
 */
export function CalendarPage({ scope, title, projectId }: CalendarPageProps) {
  useDocumentTitle(projectId === undefined ? VIEW_COPY.calendar : `${title} ${VIEW_COPY.calendar}`);
  const zone = useViewZone();
  const today = todayIn(zone);
  const [month, setMonth] = useState(monthOf(today));
  const [openDay, setOpenDay] = useState<string | null>(null);
  const asGrid = useMediaQuery(GRID_WIDTH);
  const weeks = useMemo(() => monthGrid(month, firstDayOfWeek()), [month]);
  const window = asGrid
    ? { dueFrom: weeks[0]![0]!, dueTo: weeks.at(-1)!.at(-1)! }
    : { dueFrom: `${month}-01`, dueTo: addDays(`${shiftMonth(month, 1)}-01`, -1) };
  const { data: tasks, isError, refetch } = useDueTasks(scope, window);
  const byDay = useMemo(() => tasksByDay(tasks ?? [], zone), [tasks, zone]);
  useDayDrop(byDay);

  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <PageHeading className="text-2xl font-semibold tracking-tight">
          {projectId === undefined ? VIEW_COPY.calendar : `${title} · ${VIEW_COPY.calendar}`}
        </PageHeading>
        {projectId === undefined ? (
          <OnlyAssignedControl />
        ) : (
          <Button asChild variant="outline" size="sm">
            <Link href={projectHref(projectId)}>
              <ListIcon aria-hidden />
              {VIEW_COPY.listView}
            </Link>
          </Button>
        )}
      </div>
      <div className="mt-4 mb-3 flex flex-wrap items-center gap-2">
        <Button
          variant="outline"
          size="icon"
          aria-label={VIEW_COPY.previousMonth}
          onClick={() => setMonth(shiftMonth(month, -1))}
        >
          <ChevronLeftIcon aria-hidden />
        </Button>
        <Button
          variant="outline"
          size="icon"
          aria-label={VIEW_COPY.nextMonth}
          onClick={() => setMonth(shiftMonth(month, 1))}
        >
          <ChevronRightIcon aria-hidden />
        </Button>
        <h2 aria-live="polite" className="ml-1 text-lg font-medium">
          {monthHeading(month)}
        </h2>
        {month !== monthOf(today) && (
          <Button variant="ghost" size="sm" onClick={() => setMonth(monthOf(today))}>
            {VIEW_COPY.thisMonth}
          </Button>
        )}
      </div>
      {asGrid && (
        <p id="calendar-hint" className="mb-3 text-sm text-muted-foreground">
          {VIEW_COPY.calendarHint}
        </p>
      )}
      {isError && !tasks ? (
        <LoadError onRetry={() => void refetch()} />
      ) : asGrid ? (
        <MonthGrid month={month} today={today} byDay={byDay} onMonth={setMonth} onOpen={setOpenDay} />
      ) : (
        <Agenda month={month} today={today} byDay={byDay} />
      )}
      <Dialog open={openDay !== null} onOpenChange={(open) => !open && setOpenDay(null)}>
        <DialogContent className="sm:max-w-md">
          <DialogHeader>
            <DialogTitle>{openDay ? longDayHeading(openDay) : ''}</DialogTitle>
            <DialogDescription>
              {openDay ? VIEW_COPY.dayLabel(dayHeading(openDay, today), byDay.get(openDay)?.length ?? 0) : ''}
            </DialogDescription>
          </DialogHeader>
          {openDay && (byDay.get(openDay)?.length ?? 0) > 0 ? (
            <DayTaskLinks tasks={byDay.get(openDay) ?? []} onFollow={() => setOpenDay(null)} />
          ) : (
            <p className="text-sm text-muted-foreground">{VIEW_COPY.nothingDue}</p>
          )}
        </DialogContent>
      </Dialog>
    </>
  );
}
