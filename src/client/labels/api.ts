import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type CreateFilterBody,
  type CreateLabelBody,
  FILTERS_PATH,
  filterPath,
  LABELS_PATH,
  type Label,
  labelPath,
  type SavedFilter,
  type UpdateLabelBody,
} from '../../common/labels';
import { apiRequest } from '../lib/api';
import { invalidateTask } from '../tasks/api';

/** Query keys are the URLs they GET; the server's live events name them when they change. */
export const labelsKey = [LABELS_PATH] as const;
export const filtersKey = [FILTERS_PATH] as const;

/** The caller's labels, by name. */
export const useLabels = () => useQuery<Label[]>({ queryKey: labelsKey });
/** The caller's saved filters, oldest first. */
export const useSavedFilters = () => useQuery<SavedFilter[]>({ queryKey: filtersKey });

const addTo = <T extends { id: number }>(queryClient: QueryClient, key: readonly unknown[], item: T) =>
  queryClient.setQueryData<T[]>(key, (list) =>
    list ? [...list.filter((x) => x.id !== item.id), item] : list,
  );

/** POST /api/labels; the new label is in the cached list at once. */
export function useCreateLabel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateLabelBody) =>
      (await (await apiRequest('POST', LABELS_PATH, body)).json()) as Label,
    onSuccess: (label) => {
      addTo(queryClient, labelsKey, label);
      void queryClient.invalidateQueries({ queryKey: labelsKey });
    },
  });
}

/** PATCH /api/labels/{id}: its tasks show the new name or colour, so the lists are read again. */
export function useUpdateLabel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, body }: { id: number; body: UpdateLabelBody }) =>
      (await (await apiRequest('PATCH', labelPath(id), body)).json()) as Label,
    onSuccess: (label) => {
      addTo(queryClient, labelsKey, label);
      void queryClient.invalidateQueries({ queryKey: labelsKey });
      void invalidateTask(queryClient);
    },
  });
}

/** DELETE /api/labels/{id}: it leaves every task, so the lists are read again. */
export function useDeleteLabel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest('DELETE', labelPath(id));
      return id;
    },
    onSuccess: (id) => {
      queryClient.setQueryData<Label[]>(labelsKey, (list) => list?.filter((l) => l.id !== id));
      void queryClient.invalidateQueries({ queryKey: labelsKey });
      void invalidateTask(queryClient);
    },
  });
}

export function useCreateSavedFilter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateFilterBody) =>
      (await (await apiRequest('POST', FILTERS_PATH, body)).json()) as SavedFilter,
    onSuccess: (filter) => {
      addTo(queryClient, filtersKey, filter);
      void queryClient.invalidateQueries({ queryKey: filtersKey });
    },
  });
}

export function useDeleteSavedFilter() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest('DELETE', filterPath(id));
      return id;
    },
    onSuccess: (id) => {
      queryClient.setQueryData<SavedFilter[]>(filtersKey, (list) => list?.filter((f) => f.id !== id));
      void queryClient.invalidateQueries({ queryKey: filtersKey });
    },
  });
}
