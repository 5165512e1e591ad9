import { useOnlyAssigned } from './api';
import { VIEW_COPY } from './copy';

/**
 * 'Only tasks assigned to me' (issue 28) on Today, Upcoming and the calendar: one remembered choice
 * for the three (and the sidebar's counts), unticked by default.
 */
export function OnlyAssignedControl() {
  const { onlyAssigned, setOnlyAssigned } = useOnlyAssigned();
  return (
    <label className="flex h-9 w-fit cursor-pointer items-center gap-2 rounded-md border px-3 text-sm">
      <input
        type="checkbox"
        name="onlyAssigned"
        checked={onlyAssigned}
        onChange={(event) => setOnlyAssigned(event.target.checked)}
        className="size-4 accent-primary"
      />
      {VIEW_COPY.onlyAssigned}
    </label>
  );
}
