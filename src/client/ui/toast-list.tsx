import { Portal } from 'radix-ui';
import {
  Toast,
  ToastAction,
  ToastClose,
  ToastDescription,
  ToastProvider,
  ToastTitle,
  ToastViewport,
} from './toast';
import { useToast } from './use-toast';

/** The toasts raised with `toast()`, drawn with Radix Toast. */
export function ToastList() {
  const { toasts, dismiss } = useToast();
  return (
    <ToastProvider>
      {toasts.map(({ id, title, description, action, ...props }) => (
        <Toast key={id} {...props} onOpenChange={(open) => open || dismiss(id)}>
          <div className="grid gap-1">
            {title && <ToastTitle>{title}</ToastTitle>}
            {description && <ToastDescription>{description}</ToastDescription>}
          </div>
          {action && (
            <ToastAction altText={action.altText ?? action.label} onClick={action.onClick}>
              {action.label}
            </ToastAction>
          )}
          <ToastClose />
        </Toast>
      ))}
      {/* A modal dialog hides everything outside it from assistive technology except live regions
          (aria-hidden's rule): marking the toasts' own layer keeps them heard and reachable. It stays
          "off" because each toast announces itself through Radix's own status element. */}
      <Portal.Root aria-live="off">
        <ToastViewport />
      </Portal.Root>
    </ToastProvider>
  );
}
