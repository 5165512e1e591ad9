import { COPY } from '../../common/spec';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { DevicesSection } from './DevicesSection';
import { PasskeysSection } from './PasskeysSection';
import { TokensSection } from './TokensSection';
import { TwoFactorSection } from './TwoFactorSection';

/** 'Security' (issue 12): second factors, passkeys, signed-in devices and API tokens. */
export function SecurityDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-6 sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>{COPY.security}</DialogTitle>
          <DialogDescription>
            How you sign in, where you are signed in, and your API tokens.
          </DialogDescription>
        </DialogHeader>
        <TwoFactorSection />
        <PasskeysSection />
        <DevicesSection />
        <TokensSection />
      </DialogContent>
    </Dialog>
  );
}
