import { LIMITS } from '../../common/spec';
import { Skeleton } from '../ui/skeleton';

/** Spec §2: three placeholder cards while the list loads. */
export function TaskSkeletons() {
  return (
    <div role="status" aria-label="Loading tasks" className="grid gap-3">
      {Array.from({ length: LIMITS.skeletonCards }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders, never reordered
        <div key={i} className="flex items-start gap-3 rounded-xl border bg-card p-4">
          <Skeleton className="mt-1 size-5 rounded-full" />
          <div className="grid flex-1 gap-2">
            <Skeleton className="h-5 w-1/2" />
            <Skeleton className="h-4 w-4/5" />
            <Skeleton className="h-5 w-24" />
          </div>
        </div>
      ))}
    </div>
  );
}
