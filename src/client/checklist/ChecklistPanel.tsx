import { ArrowDownIcon, ArrowUpIcon, CheckIcon, GripVerticalIcon, Trash2Icon } from 'lucide-react';
import {
  type KeyboardEvent,
  type PointerEvent as ReactPointerEvent,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { CHECKLIST_LIMITS, type ChecklistItem } from '../../common/checklist';
import { cn } from '../lib/cn';
import type { TaskPermissions } from '../projects/api';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import { errorToast } from '../ui/toasts';
import {
  CHECKLIST_ERRORS,
  useAddChecklistItem,
  useChecklist,
  useDeleteChecklistItem,
  useReorderChecklist,
  useUpdateChecklistItem,
} from './api';

export const CHECKLIST_COPY = {
  heading: 'Checklist',
  addItem: 'Add an item',
  blankTitle: 'An item needs a title',
  progress: (done: number, total: number) => `${done} of ${total} done`,
  /** Read out before an item's title where the item cannot be ticked by the caller (a viewer). */
  done: 'Done:',
} as const;

type Control = 'toggle' | 'title' | 'up' | 'down';

/** Which control of which item takes focus once the list shows the order `when`. */
type PendingFocus = { target: { id: number; control: Control } | 'add'; when: number[] };

/** While `released`, the dropped order shows until the server has answered (no flash of the old one). */
type Drag = { id: number; order: number[]; start: number[]; released?: boolean };

const sameOrder = (a: number[], b: number[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * A task's checklist in its expanded card (issue 13). Items are reordered by their grip with a mouse
 * or a finger, and by 'Move up'/'Move down' or Alt+Arrow keys from the keyboard; each move is announced.
 * The card list is a @hello-pangea/dnd list and the library cannot nest one inside a draggable card,
 * hence the small pointer drag here (docs/decisions/019-checklist-ui.md).
 *
 * What the caller's role does not allow is absent (issue 28): a commenter ticks items, an editor
 * also adds, renames, moves and deletes them; a viewer reads them.
 */
export function ChecklistPanel({ taskId, can }: { taskId: number; can: TaskPermissions }) {
  const headingId = useId();
  const { data: items, isPending, isError } = useChecklist(taskId);
  const add = useAddChecklistItem(taskId);
  const update = useUpdateChecklistItem(taskId);
  const remove = useDeleteChecklistItem(taskId);
  const reorder = useReorderChecklist(taskId);
  const [announcement, setAnnouncement] = useState('');
  const [drag, setDrag] = useState<Drag | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const addRef = useRef<HTMLInputElement>(null);
  const focusNext = useRef<PendingFocus | null>(null);
  // The order the last move asked for, until the list shows it: a second Alt+Arrow pressed before the
  // first one's render starts from where the first left the item, not from the stale order.
  const movedTo = useRef<number[] | null>(null);

  const byId = new Map((items ?? []).map((item) => [item.id, item]));
  const shown = drag ? drag.order.flatMap((id) => byId.get(id) ?? []) : (items ?? []);
  const done = shown.filter((item) => item.done).length;

  // A moved item's node is taken out and put back by React, and a deleted one is gone: either way focus
  // would fall to the page, so it goes where the action left off.
  useLayoutEffect(() => {
    if (
      movedTo.current &&
      sameOrder(
        movedTo.current,
        shown.map((item) => item.id),
      )
    )
      movedTo.current = null;
    const pending = focusNext.current;
    if (
      !pending ||
      !sameOrder(
        pending.when,
        shown.map((item) => item.id),
      )
    )
      return;
    focusNext.current = null;
    const { target } = pending;
    if (target === 'add') addRef.current?.focus();
    else
      listRef.current
        ?.querySelector<HTMLElement>(`[data-item-id="${target.id}"] [data-control="${target.control}"]`)
        ?.focus();
  });

  const announce = (text: string) =>
    // The same words twice in a row (a second 'already first') must still be read out.
    setAnnouncement((current) => (current === text ? `${text}\u00a0` : text));

  const commitOrder = (order: number[], item: ChecklistItem, onSettled?: () => void) => {
    const position = order.indexOf(item.id) + 1;
    announce(`Moved ${item.title} to position ${position} of ${order.length}`);
    reorder.mutate(order, { onError: failed(CHECKLIST_ERRORS.reorder), onSettled });
  };

  /** Tells the failure; focus meant for the state that did not come about is not moved. */
  const failed = (message: string) => () => {
    focusNext.current = null;
    movedTo.current = null;
    errorToast(message);
  };

  const move = (item: ChecklistItem, by: -1 | 1, control: Control) => {
    const order = [...(movedTo.current ?? shown.map((i) => i.id))];
    const from = order.indexOf(item.id);
    const to = from + by;
    if (to < 0 || to >= order.length) {
      announce(`${item.title} is already ${by < 0 ? 'first' : 'last'}`);
      return;
    }
    order.splice(from, 1);
    order.splice(to, 0, item.id);
    focusNext.current = { target: { id: item.id, control }, when: order };
    movedTo.current = order;
    commitOrder(order, item, () => {
      if (movedTo.current === order) movedTo.current = null;
    });
  };

  const deleteItem = (item: ChecklistItem) => {
    const index = shown.findIndex((i) => i.id === item.id);
    const next = shown[index + 1];
    const when = shown.filter((i) => i.id !== item.id).map((i) => i.id);
    focusNext.current = { target: next ? { id: next.id, control: 'toggle' } : 'add', when };
    announce(`Deleted ${item.title}`);
    remove.mutate(item.id, { onError: failed(CHECKLIST_ERRORS.remove) });
  };

  // Pointer drag: the grip follows the pointer over the rows; the new order is saved on release.
  useEffect(() => {
    if (!drag || drag.released) return;
    const onMove = (event: PointerEvent) => {
      const rows = [...(listRef.current?.querySelectorAll<HTMLElement>('[data-item-id]') ?? [])];
      const others = rows.filter((row) => Number(row.dataset.itemId) !== drag.id);
      const index = others.filter((row) => {
        const box = row.getBoundingClientRect();
        return box.top + box.height / 2 < event.clientY;
      }).length;
      const order = others.map((row) => Number(row.dataset.itemId));
      order.splice(index, 0, drag.id);
      if (!sameOrder(order, drag.order)) setDrag({ ...drag, order });
    };
    const onUp = () => {
      const item = byId.get(drag.id);
      if (!item || sameOrder(drag.order, drag.start)) {
        setDrag(null);
        return;
      }
      setDrag({ ...drag, released: true });
      commitOrder(drag.order, item, () => setDrag(null));
    };
    const onCancel = () => setDrag(null);
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    window.addEventListener('pointercancel', onCancel);
    return () => {
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      window.removeEventListener('pointercancel', onCancel);
    };
  });

  const startDrag = (item: ChecklistItem, event: ReactPointerEvent) => {
    if (event.button !== 0 || drag) return;
    // No text selection and no scrolling while the finger drags.
    event.preventDefault();
    const start = shown.map((i) => i.id);
    setDrag({ id: item.id, order: start, start });
  };

  const addItem = (title: string) => {
    add.mutate(title, {
      onError: () => {
        errorToast(CHECKLIST_ERRORS.add);
        // The typed title comes back unless a new one is being typed.
        if (addRef.current && !addRef.current.value) addRef.current.value = title;
      },
    });
  };

  return (
    <section aria-labelledby={headingId} className="grid gap-2">
      <div className="flex items-baseline justify-between gap-2">
        <h3 id={headingId} className="text-sm leading-none font-medium">
          {CHECKLIST_COPY.heading}
        </h3>
        {shown.length > 0 && (
          <span className="text-xs text-muted-foreground">{CHECKLIST_COPY.progress(done, shown.length)}</span>
        )}
      </div>
      {shown.length > 0 && (
        <div aria-hidden className="h-1 overflow-hidden rounded-full bg-muted">
          <div
            className="h-full rounded-full bg-primary transition-[width]"
            style={{ width: `${(done / shown.length) * 100}%` }}
          />
        </div>
      )}
      {isPending ? (
        <p className="text-sm text-muted-foreground">Loading checklist…</p>
      ) : isError ? (
        <p className="text-sm text-destructive">Could not load the checklist.</p>
      ) : (
        shown.length > 0 && (
          <ul ref={listRef} aria-labelledby={headingId} className="grid gap-0.5">
            {shown.map((item) => (
              <ChecklistRow
                key={item.id}
                item={item}
                dragging={drag?.id === item.id && !drag.released}
                can={can}
                onToggle={() =>
                  update.mutate(
                    { id: item.id, done: !item.done },
                    { onError: () => errorToast(CHECKLIST_ERRORS.update) },
                  )
                }
                onRename={(title) =>
                  update.mutate(
                    { id: item.id, title },
                    { onError: () => errorToast(CHECKLIST_ERRORS.update) },
                  )
                }
                onMove={(by, control) => move(item, by, control)}
                onDelete={() => deleteItem(item)}
                onGrip={(event) => startDrag(item, event)}
              />
            ))}
          </ul>
        )
      )}
      {can.change && (
        <Input
          ref={addRef}
          name="newItem"
          aria-label={CHECKLIST_COPY.addItem}
          placeholder={CHECKLIST_COPY.addItem}
          maxLength={CHECKLIST_LIMITS.titleMax}
          disabled={isPending || isError}
          onKeyDown={(event) => {
            if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
            event.preventDefault();
            const title = event.currentTarget.value.trim();
            if (!title) return;
            // Cleared at once: the next item can be typed while this one is saved.
            event.currentTarget.value = '';
            addItem(title);
          }}
          className="h-8"
        />
      )}
      <p role="status" className="sr-only">
        {announcement}
      </p>
    </section>
  );
}

type RowProps = {
  item: ChecklistItem;
  dragging: boolean;
  can: TaskPermissions;
  onToggle(): void;
  onRename(title: string): void;
  onMove(by: -1 | 1, control: Control): void;
  onDelete(): void;
  onGrip(event: ReactPointerEvent): void;
};

function ChecklistRow({ item, dragging, can, onToggle, onRename, onMove, onDelete, onGrip }: RowProps) {
  const [editing, setEditing] = useState(false);
  const titleRef = useRef<HTMLButtonElement>(null);
  // After Enter or Escape the person carries on from the title they edited.
  const refocus = useRef(false);
  useEffect(() => {
    if (!editing && refocus.current) {
      refocus.current = false;
      titleRef.current?.focus();
    }
  }, [editing]);

  // Alt+Arrow moves the item from any of its controls (not while its title is being edited).
  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>) => {
    if (!can.change || editing || !event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown'))
      return;
    event.preventDefault();
    const control = (event.target as HTMLElement).dataset.control;
    const keep = control === 'title' || control === 'up' || control === 'down' ? control : 'toggle';
    onMove(event.key === 'ArrowUp' ? -1 : 1, keep);
  };

  return (
    <li
      data-item-id={item.id}
      onKeyDown={onKeyDown}
      className={cn(
        'group/item flex min-h-9 items-center gap-1.5 rounded-md px-1 transition-colors hover:bg-accent/40',
        dragging && 'bg-accent shadow-sm ring-2 ring-ring/40',
      )}
    >
      {can.change ? (
        <div
          aria-hidden
          onPointerDown={onGrip}
          className="flex h-7 w-4 shrink-0 cursor-grab touch-none items-center justify-center text-muted-foreground/60 hover:text-muted-foreground active:cursor-grabbing"
        >
          <GripVerticalIcon className="size-3.5" />
        </div>
      ) : (
        <span aria-hidden className="w-4 shrink-0" />
      )}
      <span className="relative flex size-4 shrink-0">
        {can.comment ? (
          <input
            type="checkbox"
            name="done"
            data-control="toggle"
            checked={item.done}
            aria-label={item.title}
            onChange={onToggle}
            className="peer size-4 cursor-pointer appearance-none rounded border-2 border-muted-foreground/50 outline-none transition-colors checked:border-primary checked:bg-primary hover:border-primary focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-card"
          />
        ) : (
          <span
            aria-hidden
            className={cn(
              'peer size-4 rounded border-2 border-muted-foreground/50',
              item.done && 'border-primary bg-primary',
            )}
          />
        )}
        <CheckIcon
          aria-hidden
          strokeWidth={3}
          className={cn(
            'pointer-events-none absolute inset-0 m-auto size-3 text-primary-foreground',
            !item.done && 'hidden',
          )}
        />
      </span>
      <div className="min-w-0 flex-1">
        {!can.change ? (
          <span
            className={cn(
              'block px-1 py-1 text-sm break-words',
              item.done && 'text-muted-foreground line-through',
            )}
          >
            {item.done && !can.comment && <span className="sr-only">{CHECKLIST_COPY.done} </span>}
            {item.title}
          </span>
        ) : editing ? (
          <TitleField
            title={item.title}
            onDone={(title, viaKeyboard) => {
              refocus.current = viaKeyboard;
              setEditing(false);
              if (title !== null && title !== item.title) onRename(title);
            }}
          />
        ) : (
          <button
            ref={titleRef}
            type="button"
            data-control="title"
            aria-label={`Edit ${item.title}`}
            onClick={() => setEditing(true)}
            className={cn(
              'block w-full cursor-text rounded-sm px-1 py-1 text-left text-sm break-words outline-none focus-visible:ring-2 focus-visible:ring-ring',
              item.done && 'text-muted-foreground line-through',
            )}
          >
            {item.title}
          </button>
        )}
      </div>
      {can.change && (
        <div className="flex shrink-0 items-center">
          <Button
            variant="ghost"
            size="icon"
            data-control="up"
            aria-label={`Move ${item.title} up`}
            onClick={() => onMove(-1, 'up')}
            className="size-7 text-muted-foreground"
          >
            <ArrowUpIcon aria-hidden />
          </Button>
          <Button
            variant="ghost"
            size="icon"
            data-control="down"
            aria-label={`Move ${item.title} down`}
            onClick={() => onMove(1, 'down')}
            className="size-7 text-muted-foreground"
          >
            <ArrowDownIcon aria-hidden />
          </Button>
          <Button
            variant="ghost"
            size="icon"
            aria-label={`Delete ${item.title}`}
            onClick={onDelete}
            className="size-7 text-muted-foreground hover:bg-destructive/10 hover:text-destructive"
          >
            <Trash2Icon aria-hidden />
          </Button>
        </div>
      )}
    </li>
  );
}

/**
 * The title being edited: Enter saves, Escape puts the old title back, leaving the field saves. A blank
 * title is refused with a message and the field stays (leaving it then keeps the old title).
 */
function TitleField({
  title,
  onDone,
}: {
  title: string;
  onDone(title: string | null, viaKeyboard: boolean): void;
}) {
  const errorId = useId();
  const [blank, setBlank] = useState(false);
  const finished = useRef(false);
  const finish = (next: string | null, viaKeyboard: boolean) => {
    if (finished.current) return;
    finished.current = true;
    onDone(next, viaKeyboard);
  };
  return (
    <div className="grid gap-1">
      <Input
        autoFocus
        name="title"
        defaultValue={title}
        aria-label={`Edit ${title}`}
        aria-invalid={blank || undefined}
        aria-describedby={blank ? errorId : undefined}
        maxLength={CHECKLIST_LIMITS.titleMax}
        onChange={() => setBlank(false)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            // The card would take Escape too; this one only cancels the edit.
            event.preventDefault();
            event.stopPropagation();
            finish(null, true);
          } else if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
            event.preventDefault();
            const next = event.currentTarget.value.trim();
            if (next) finish(next, true);
            else setBlank(true);
          }
        }}
        onBlur={(event) => finish(event.currentTarget.value.trim() || null, false)}
        className="h-7 px-1 text-sm"
      />
      {blank && (
        <p id={errorId} role="alert" className="text-xs text-destructive">
          {CHECKLIST_COPY.blankTitle}
        </p>
      )}
    </div>
  );
}
