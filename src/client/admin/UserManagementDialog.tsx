import { COPY } from '../../common/spec';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { Section } from '../ui/section';
import { AccessRequestList } from './AccessRequestList';
import { ActivityLog } from './ActivityLog';
import { CreateUserForm } from './CreateUserForm';
import { UserList } from './UserList';

/** Admins' dialog (spec §2, §6): create users, manage them, review access requests. */
export function UserManagementDialog({ open, onOpenChange }: ControlledDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-6 sm:max-w-4xl">
        <DialogHeader>
          <DialogTitle>{COPY.userManagement}</DialogTitle>
          <DialogDescription>Create accounts, manage users and review access requests.</DialogDescription>
        </DialogHeader>
        <Section title="Create User">
          <CreateUserForm />
        </Section>
        <UserList />
        <AccessRequestList />
        <ActivityLog />
      </DialogContent>
    </Dialog>
  );
}
