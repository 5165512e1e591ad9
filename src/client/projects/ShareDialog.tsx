import { zodResolver } from '@hookform/resolvers/zod';
import {
  ArchiveIcon,
  ArchiveRestoreIcon,
  CrownIcon,
  LogOutIcon,
  Trash2Icon,
  UserMinusIcon,
} from 'lucide-react';
import { type ComponentProps, type ReactNode, useState } from 'react';
import { useController, useForm } from 'react-hook-form';
import { useLocation } from 'wouter';
import {
  type AddProjectMemberBody,
  ASSIGNABLE_ROLES,
  type AssignableRole,
  addProjectMemberBodySchema,
  type Project,
  type ProjectColor,
  type ProjectMember,
  updateProjectBodySchema,
} from '../../common/projects';
import { closeDialog } from '../app/dialogs';
import { SCREEN_PATHS } from '../app/screens';
import { errorMessage } from '../lib/api';
import { useSession } from '../lib/session';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import {
  type ControlledDialogProps,
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '../ui/dialog';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../ui/select';
import { Skeleton } from '../ui/skeleton';
import { successToast } from '../ui/toasts';
import { useSubmitError } from '../ui/use-submit-error';
import {
  can,
  grantableRoles,
  useAddMember,
  useDeleteProject,
  useMembers,
  useRemoveMember,
  useTransferProject,
  useUpdateMember,
  useUpdateProject,
} from './api';
import { ColorPicker } from './ColorPicker';
import { PROJECT_COPY, ROLE_HINTS, ROLE_LABELS, YOUR_ROLE } from './copy';
import { MemberAvatar, memberName } from './MemberAvatar';

type Failure = ReturnType<typeof useSubmitError>;

/** Runs a call; a refusal shows the server's own `{message}` in the section's alert. */
async function attempt(failure: Failure, call: () => Promise<unknown>): Promise<boolean> {
  failure.clear();
  try {
    await call();
    return true;
  } catch (error) {
    failure.report(errorMessage(error, PROJECT_COPY.actionFailed));
    return false;
  }
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="grid min-w-0 grid-cols-1 gap-3 border-t pt-4">
      <h3 id={id} className="text-sm font-semibold">
        {title}
      </h3>
      {children}
    </section>
  );
}

/** The roles a member may be given by the caller. */
function RoleSelect({
  value,
  roles,
  onChange,
  name,
  ...trigger
}: {
  value: AssignableRole;
  roles: readonly AssignableRole[];
  onChange: (role: AssignableRole) => void;
  /** In a form, the name of the native select Radix adds beside it. */
  name?: string;
} & Pick<ComponentProps<typeof SelectTrigger>, 'aria-label' | 'aria-labelledby'>) {
  return (
    <Select name={name} value={value} onValueChange={(next) => onChange(next as AssignableRole)}>
      <SelectTrigger {...trigger} className="w-34 shrink-0">
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        {roles.map((role) => (
          <SelectItem key={role} value={role}>
            {ROLE_LABELS[role]}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}

/** Add a person by username or e-mail, with a role the caller may give (admin+). */
function AddMemberForm({
  project,
  roles,
  failure,
}: {
  project: Project;
  roles: AssignableRole[];
  failure: Failure;
}) {
  const add = useAddMember(project.id);
  const defaults: AddProjectMemberBody = { user: '', role: roles.includes('editor') ? 'editor' : roles[0]! };
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(addProjectMemberBodySchema), defaultValues: defaults });
  const { field: role } = useController({ control, name: 'role' });
  const onSubmit = handleSubmit(async (body) => {
    let added: ProjectMember | undefined;
    if (await attempt(failure, async () => (added = await add.mutateAsync(body)))) {
      reset({ user: '', role: body.role });
      successToast([PROJECT_COPY.share, PROJECT_COPY.personAdded(memberName(added!))]);
    }
  });
  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-2">
      <div className="flex flex-wrap items-end gap-2">
        <FormField label={PROJECT_COPY.userField} error={errors.user?.message} className="min-w-48 flex-1">
          <Input autoComplete="off" {...register('user')} />
        </FormField>
        <div className="grid gap-2">
          <span id="share-add-role" className="text-sm leading-none font-medium">
            {PROJECT_COPY.role}
          </span>
          <RoleSelect
            name="role"
            value={role.value}
            roles={roles}
            onChange={role.onChange}
            aria-labelledby="share-add-role"
          />
        </div>
        <SubmitButton pending={isSubmitting}>{PROJECT_COPY.addPerson}</SubmitButton>
      </div>
      <p className="text-xs text-muted-foreground">{ROLE_HINTS[role.value]}.</p>
    </form>
  );
}

/** One member: their role, changeable, and Remove and Make owner, where the caller may. */
function MemberRow({
  project,
  member,
  me,
  failure,
}: {
  project: Project;
  member: ProjectMember;
  me: number | undefined;
  failure: Failure;
}) {
  const updateMember = useUpdateMember(project.id);
  const removeMember = useRemoveMember(project.id);
  const transfer = useTransferProject(project.id);
  const name = memberName(member);
  const displayName = member.firstName.trim() || member.username;
  const self = member.userId === me;
  const managed = !project.archived && !self && can.manageMember(project.role, member.role);
  const roles = managed ? grantableRoles(project.role, ASSIGNABLE_ROLES) : [];
  const transferable = !project.archived && !self && project.role === 'owner';

  return (
    // On a phone the role and the buttons go under the name, which keeps room to be read.
    <li className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <MemberAvatar member={member} />
      <div className="min-w-0 flex-1 basis-36">
        <p className="truncate text-sm font-medium">
          {displayName}
          {self && <span className="font-normal text-muted-foreground"> ({PROJECT_COPY.you})</span>}
        </p>
        {displayName !== member.username && (
          <p className="truncate text-xs text-muted-foreground">{member.username}</p>
        )}
      </div>
      <div className="ml-auto flex items-center gap-1">
        {managed && member.role !== 'owner' ? (
          <RoleSelect
            value={member.role}
            roles={roles}
            aria-label={PROJECT_COPY.roleOf(name)}
            onChange={(role) =>
              void attempt(failure, () => updateMember.mutateAsync({ userId: member.userId, role }))
            }
          />
        ) : (
          <span className="shrink-0 text-sm text-muted-foreground sm:w-34 sm:px-3">
            {ROLE_LABELS[member.role]}
          </span>
        )}
        <div className="flex shrink-0 justify-end sm:w-18">
          {transferable && (
            <ConfirmButton
              title={PROJECT_COPY.transferTitle(name)}
              description={PROJECT_COPY.transferDescription(name, project.name)}
              confirmLabel={PROJECT_COPY.transfer}
              onConfirm={() => void attempt(failure, () => transfer.mutateAsync(member.userId))}
            >
              <Button
                variant="ghost"
                size="icon"
                aria-label={PROJECT_COPY.makeOwner(name)}
                title={PROJECT_COPY.makeOwner(name)}
              >
                <CrownIcon aria-hidden />
              </Button>
            </ConfirmButton>
          )}
          {managed && (
            <ConfirmButton
              title={PROJECT_COPY.removeTitle(name)}
              description={PROJECT_COPY.removeDescription(name, project.name)}
              confirmLabel="Remove"
              onConfirm={() => void attempt(failure, () => removeMember.mutateAsync(member.userId))}
            >
              <Button
                variant="ghost"
                size="icon"
                aria-label={PROJECT_COPY.remove(name)}
                title={PROJECT_COPY.remove(name)}
                className="hover:bg-destructive/10 hover:text-destructive"
              >
                <UserMinusIcon aria-hidden />
              </Button>
            </ConfirmButton>
          )}
        </div>
      </div>
    </li>
  );
}

/** Rename and recolour (admin+, while not archived). */
function SettingsForm({ project, failure }: { project: Project; failure: Failure }) {
  const update = useUpdateProject(project.id);
  const [color, setColor] = useState<ProjectColor>(project.color);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(updateProjectBodySchema), defaultValues: { name: project.name } });
  const onSubmit = handleSubmit(async ({ name }) => {
    if (await attempt(failure, () => update.mutateAsync({ name, color }))) successToast(PROJECT_COPY.saved);
  });
  return (
    <form onSubmit={onSubmit} noValidate className="grid gap-4">
      <FormField label={PROJECT_COPY.projectName} error={errors.name?.message}>
        <Input autoComplete="off" {...register('name')} />
      </FormField>
      <ColorPicker name="share-color" value={color} onChange={setColor} />
      <div>
        <SubmitButton pending={isSubmitting} variant="outline">
          {PROJECT_COPY.save}
        </SubmitButton>
      </div>
    </form>
  );
}

/**
 * 'Share' (issue 21): the project's people and, for its admins and owner, its settings. Each role
 * sees only the controls it may use (owner: everything; admin: editors, commenters and viewers,
 * rename, recolour, archive; everyone else: leave); the server refuses the rest anyway, and its
 * message shows here. An archived project offers only restoring, and leaving.
 */
export function ShareDialog({ project, open, onOpenChange }: ControlledDialogProps & { project: Project }) {
  const me = useSession()?.user.id;
  const [, navigate] = useLocation();
  const { data: members, isPending } = useMembers(project.id, open);
  const people = useSubmitError({ inlineOnly: true });
  const settings = useSubmitError({ inlineOnly: true });
  const update = useUpdateProject(project.id);
  const removeMember = useRemoveMember(project.id);
  const deleteProject = useDeleteProject(project.id);
  const addRoles = project.archived ? [] : grantableRoles(project.role, ASSIGNABLE_ROLES);
  const managing = can.manageProject(project.role);

  /** Leaving the project's screen (left, deleted): the Inbox, with a word saying what happened. */
  const goHome = (message: string) => {
    closeDialog('share');
    navigate(SCREEN_PATHS.inbox);
    successToast(message);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) {
          people.clear();
          settings.clear();
        }
        onOpenChange(next);
      }}
    >
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>
            {PROJECT_COPY.share} “{project.name}”
          </DialogTitle>
          <DialogDescription>{YOUR_ROLE[project.role]}</DialogDescription>
        </DialogHeader>
        {project.archived && (
          <p className="flex items-center gap-2 rounded-lg border bg-muted/60 px-3 py-2 text-sm">
            <ArchiveIcon aria-hidden className="size-4 shrink-0 text-muted-foreground" />
            {PROJECT_COPY.archivedNotice}
          </p>
        )}

        <Section id="share-people" title={PROJECT_COPY.people}>
          <FormAlert>{people.error}</FormAlert>
          {addRoles.length > 0 && <AddMemberForm project={project} roles={addRoles} failure={people} />}
          {isPending ? (
            <div aria-hidden className="grid gap-2">
              <Skeleton className="h-8" />
              <Skeleton className="h-8" />
            </div>
          ) : (
            <ul aria-label={PROJECT_COPY.members} className="grid grid-cols-1 gap-2">
              {members?.map((member) => (
                <MemberRow key={member.userId} project={project} member={member} me={me} failure={people} />
              ))}
            </ul>
          )}
          {project.role !== 'owner' && me !== undefined && (
            <div>
              <ConfirmButton
                title={`${PROJECT_COPY.leave}?`}
                description={PROJECT_COPY.leaveDescription(project.name)}
                confirmLabel={PROJECT_COPY.leave}
                onConfirm={() =>
                  void attempt(people, () => removeMember.mutateAsync(me)).then(
                    (left) => left && goHome(PROJECT_COPY.left(project.name)),
                  )
                }
              >
                <Button variant="outline">
                  <LogOutIcon aria-hidden />
                  {PROJECT_COPY.leave}
                </Button>
              </ConfirmButton>
            </div>
          )}
        </Section>

        {managing && (
          <Section id="share-settings" title={PROJECT_COPY.settings}>
            <FormAlert>{settings.error}</FormAlert>
            {!project.archived && <SettingsForm project={project} failure={settings} />}
            <div className="flex flex-wrap gap-2">
              <Button
                variant="outline"
                onClick={() =>
                  void attempt(settings, () => update.mutateAsync({ archived: !project.archived }))
                }
              >
                {project.archived ? <ArchiveRestoreIcon aria-hidden /> : <ArchiveIcon aria-hidden />}
                {project.archived ? PROJECT_COPY.restore : PROJECT_COPY.archive}
              </Button>
              {can.deleteProject(project.role) && !project.archived && (
                <ConfirmButton
                  title={PROJECT_COPY.deleteTitle(project.name)}
                  description={PROJECT_COPY.deleteDescription(project.name)}
                  confirmLabel={PROJECT_COPY.deleteProject}
                  onConfirm={() =>
                    void attempt(settings, () => deleteProject.mutateAsync()).then(
                      (deleted) => deleted && goHome(PROJECT_COPY.deleted(project.name)),
                    )
                  }
                >
                  <Button variant="destructive">
                    <Trash2Icon aria-hidden />
                    {PROJECT_COPY.deleteProject}
                  </Button>
                </ConfirmButton>
              )}
            </div>
          </Section>
        )}
      </DialogContent>
    </Dialog>
  );
}
