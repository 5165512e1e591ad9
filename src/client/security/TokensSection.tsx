import { zodResolver } from '@hookform/resolvers/zod';
import { KeyRoundIcon, Trash2Icon } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { CALDAV_COPY, DAV_ROOT } from '../../common/caldav';
import {
  type ApiToken,
  type CreatedToken,
  createTokenBodySchema,
  TOKEN_COPY,
  tokenLimitsText,
} from '../../common/tokens';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
import { useSession } from '../lib/session';
import { useProjects } from '../projects/api';
import { Button } from '../ui/button';
import { ConfirmButton } from '../ui/confirm-button';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { fieldClasses, Input } from '../ui/input';
import { formatDate, QueryList, Section } from '../ui/section';
import { ShownOnce } from '../ui/shown-once';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import { apiTokensKey, createApiToken, revokeApiToken, useApiTokens, useSecurityAction } from './api';

const EXPIRY_CHOICES = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: 'One year' },
  { value: 'never', label: 'Never' },
] as const;

const tokenFormSchema = z.object({
  /** An app password for a CalDAV app (issue 30): shown with the server address and the username. */
  caldav: z.boolean(),
  name: createTokenBodySchema.shape.name,
  expires: z.enum(EXPIRY_CHOICES.map((choice) => choice.value)),
  readOnly: z.boolean(),
  /** The checked projects' ids, as the checkboxes' values; none: all projects. */
  projectIds: z.array(z.string()),
});
type TokenForm = z.infer<typeof tokenFormSchema>;
const EMPTY: TokenForm = { caldav: false, name: '', expires: '90', readOnly: false, projectIds: [] };

/** A token just made, shown once: with what a CalDAV app is set up with when it was made for one. */
type Created = { token: CreatedToken; caldav: boolean };

/** What a CalDAV app is set up with: this server's address, the username, and the token as the password. */
function CalDavSetup({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const username = useSession()?.user.username ?? '';
  const origin = window.location.origin;
  return (
    <ShownOnce
      message={CALDAV_COPY.created(created.name)}
      fields={[
        { label: CALDAV_COPY.server, value: `${origin}${DAV_ROOT}` },
        { label: CALDAV_COPY.username, value: username },
        { label: CALDAV_COPY.password, value: created.token },
      ]}
      onDone={onDone}
    >
      <p className="text-sm text-muted-foreground">{CALDAV_COPY.discovery(origin)}</p>
    </ShownOnce>
  );
}

function TokenRow({ token, projectNames }: { token: ApiToken; projectNames: ReadonlyMap<number, string> }) {
  const revoke = useSecurityAction(revokeApiToken, apiTokensKey);
  return (
    <li
      aria-label={token.name}
      className="flex flex-col gap-3 rounded-lg border bg-card px-4 py-3 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 items-start gap-3">
        <KeyRoundIcon aria-hidden className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
        <div className="grid min-w-0 gap-1">
          <span className="truncate font-medium">{token.name}</span>
          <p className="text-sm">{tokenLimitsText(token, projectNames)}</p>
          <p className="text-sm text-muted-foreground">
            Created {formatDate(token.createdAt)} ·{' '}
            {token.expiresAt ? `Expires ${formatDate(token.expiresAt)}` : 'Never expires'} ·{' '}
            {token.lastUsedAt ? `Last used ${formatDate(token.lastUsedAt)}` : 'Never used'}
          </p>
        </div>
      </div>
      <ConfirmButton
        title={`Revoke '${token.name}'?`}
        description="Anything using this token stops working at once. This cannot be undone."
        confirmLabel="Revoke"
        onConfirm={() =>
          revoke.mutateAsync(token.id).then(
            () => toast({ title: `Token '${token.name}' revoked.` }),
            (error) =>
              toast({ title: errorMessage(error, 'Could not revoke the token.'), variant: 'destructive' }),
          )
        }
      >
        <Button variant="outline" size="sm" disabled={revoke.isPending} aria-label={`Revoke ${token.name}`}>
          <Trash2Icon aria-hidden />
          Revoke
        </Button>
      </ConfirmButton>
    </li>
  );
}

/** Personal API tokens: scripts and MCP assistants act as the person through one of these. */
export function TokensSection() {
  const tokens = useApiTokens();
  const projects = useProjects();
  const projectNames = new Map((projects.data ?? []).map((project) => [project.id, project.name]));
  const projectsHintId = useId();
  const create = useSecurityAction(createApiToken, apiTokensKey);
  const [created, setCreated] = useState<Created | null>(null);
  const failure = useSubmitError();
  const {
    register,
    handleSubmit,
    reset,
    getValues,
    setValue,
    setFocus,
    formState: { errors, isSubmitting },
  } = useForm<TokenForm>({ resolver: zodResolver(tokenFormSchema), defaultValues: EMPTY });

  // The CalDAV choice names the token for the person (unless they named it), makes it read and write,
  // which two-way sync needs, and lets it never expire (a phone's sync would stop silently after 90
  // days); all stay theirs to change.
  const caldavChoice = register('caldav', {
    onChange: (event: { target: { checked: boolean } }) => {
      const name = getValues('name').trim();
      if (event.target.checked) {
        if (name === '') setValue('name', CALDAV_COPY.defaultName);
        setValue('readOnly', false);
        setValue('expires', 'never');
      } else {
        if (name === CALDAV_COPY.defaultName) setValue('name', '');
        setValue('expires', EMPTY.expires);
      }
    },
  });

  // 'Done' takes the shown token away: focus goes back to the form rather than to the page.
  const done = () => {
    setCreated(null);
    setFocus('name');
  };

  const onSubmit = handleSubmit(async ({ caldav, name, expires, readOnly, projectIds }) => {
    failure.clear();
    try {
      const token = await create.mutateAsync({
        name,
        expiresInDays: expires === 'never' ? null : Number(expires),
        scopes: readOnly ? ['read'] : ['read', 'write'],
        projectIds: projectIds.length > 0 ? projectIds.map(Number) : null,
      });
      setCreated({ token, caldav });
      reset(EMPTY);
    } catch (error) {
      failure.report(errorMessage(error, 'Could not create the token.'));
    }
  });

  return (
    <Section title="API tokens" count={tokens.data?.length}>
      <p className="text-sm text-muted-foreground">
        A token lets a script or an AI assistant use Tasklane as you, with{' '}
        <code className="text-xs">Authorization: Bearer</code>, and a task app on your phone or desktop sync
        your tasks over CalDAV. It cannot change your password or security settings.
      </p>
      {created?.caldav && <CalDavSetup created={created.token} onDone={done} />}
      {created && !created.caldav && (
        <ShownOnce
          label={`API token ${created.token.name}`}
          message={`Your new token '${created.token.name}'. Copy it now: it is not shown again.`}
          value={created.token.token}
          onDone={done}
        />
      )}
      <form onSubmit={onSubmit} noValidate className="grid gap-3 sm:grid-cols-[1fr_10rem] sm:items-end">
        <FormAlert className="sm:col-span-2">{failure.error}</FormAlert>
        <label className="flex cursor-pointer items-start gap-2 text-sm sm:col-span-2">
          <input type="checkbox" className="mt-0.5 size-4 accent-primary" {...caldavChoice} />
          <span className="grid gap-0.5">
            <span className="font-medium">{CALDAV_COPY.choice}</span>
            <span className="text-muted-foreground">{CALDAV_COPY.choiceHint}</span>
          </span>
        </label>
        <FormField label="Token name" error={errors.name?.message}>
          <Input placeholder="e.g. Claude Desktop" autoComplete="off" {...register('name')} />
        </FormField>
        <FormField label="Expires after" error={errors.expires?.message}>
          <select className={cn(fieldClasses, 'h-9')} {...register('expires')}>
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </FormField>
        <div className="grid gap-3 sm:col-span-2 sm:grid-cols-2">
          <label className="flex cursor-pointer items-start gap-2 text-sm">
            <input type="checkbox" className="mt-0.5 size-4 accent-primary" {...register('readOnly')} />
            <span className="grid gap-0.5">
              <span className="font-medium">{TOKEN_COPY.readOnly}</span>
              <span className="text-muted-foreground">{TOKEN_COPY.readOnlyHint}</span>
            </span>
          </label>
          <fieldset className="grid gap-2" aria-describedby={projectsHintId}>
            <legend className="text-sm font-medium">{TOKEN_COPY.projects}</legend>
            <p id={projectsHintId} className="text-sm text-muted-foreground">
              {TOKEN_COPY.projectsHint}
            </p>
            <ul className="flex flex-wrap gap-2">
              {(projects.data ?? []).map((project) => (
                <li key={project.id}>
                  <label className="flex h-8 cursor-pointer items-center gap-1.5 rounded-md border px-2 text-sm has-focus-visible:ring-2 has-focus-visible:ring-ring">
                    <input
                      type="checkbox"
                      value={String(project.id)}
                      className="size-4 accent-primary outline-none"
                      {...register('projectIds')}
                    />
                    {project.name}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        </div>
        <SubmitButton pending={isSubmitting} className="sm:col-span-2 sm:justify-self-start">
          Create token
        </SubmitButton>
      </form>
      <QueryList query={tokens} what="your API tokens" empty="You have no API tokens.">
        {(items) =>
          items.map((token) => <TokenRow key={token.id} token={token} projectNames={projectNames} />)
        }
      </QueryList>
    </Section>
  );
}
