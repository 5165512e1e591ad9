import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type CreatedWebhook,
  type CreateWebhookBody,
  redeliverPath,
  type UpdateWebhookBody,
  WEBHOOKS_PATH,
  type Webhook,
  type WebhookDelivery,
  webhookDeliveriesPath,
  webhookPath,
} from '../../common/webhooks';
import { apiRequest } from '../lib/api';

/** Query keys are the URLs the default query function GETs (spec §7). */
export const webhooksKey = [WEBHOOKS_PATH] as const;
export const deliveriesKey = (id: number) => [webhookDeliveriesPath(id)] as const;

// The dialog mounts its content on each opening: show what is true now.
export const useWebhooks = () => useQuery<Webhook[]>({ queryKey: webhooksKey, refetchOnMount: 'always' });
/** A log changes as the server sends: it is read again every few seconds while shown. */
export const useDeliveries = (id: number) =>
  useQuery<WebhookDelivery[]>({
    queryKey: deliveriesKey(id),
    refetchOnMount: 'always',
    refetchInterval: 3000,
  });

export const createWebhook = async (body: CreateWebhookBody) =>
  (await (await apiRequest('POST', WEBHOOKS_PATH, body)).json()) as CreatedWebhook;

export const updateWebhook = async ({ id, ...body }: UpdateWebhookBody & { id: number }) =>
  (await (await apiRequest('PATCH', webhookPath(id), body)).json()) as Webhook;

export const deleteWebhook = async (id: number) => {
  await apiRequest('DELETE', webhookPath(id));
};

export const testWebhook = async (id: number) => {
  await apiRequest('POST', `${webhookPath(id)}/test`);
};

export const redeliver = async ({ id, deliveryId }: { id: number; deliveryId: number }) => {
  await apiRequest('POST', redeliverPath(id, deliveryId));
};

/** A change to the webhooks (or one's log), refetched once it settles. */
export function useWebhookAction<A, R>(
  action: (arg: A) => Promise<R>,
  queryKey: readonly string[] = webhooksKey,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
