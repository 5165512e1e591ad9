import { zodResolver } from '@hookform/resolvers/zod';
import { KeyRoundIcon, Trash2Icon } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import {
  type ApiToken,
  type CreatedToken,
  createTokenBodySchema,
  TOKEN_COPY,
  tokenLimitsText,
} from '../../common/tokens';
import { errorMessage } from '../lib/api';
import { cn } from '../lib/cn';
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
  name: createTokenBodySchema.shape.name,
  expires: z.enum(EXPIRY_CHOICES.map((choice) => choice.value)),
  readOnly: z.boolean(),
  /** The checked projects' ids, as the checkboxes' values; none: all projects. */
  projectIds: z.array(z.string()),
});
type TokenForm = z.infer<typeof tokenFormSchema>;
const EMPTY: TokenForm = { name: '', expires: '90', readOnly: false, projectIds: [] };

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
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const failure = useSubmitError();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<TokenForm>({ resolver: zodResolver(tokenFormSchema), defaultValues: EMPTY });

  const onSubmit = handleSubmit(async ({ name, expires, readOnly, projectIds }) => {
    failure.clear();
    try {
      const token = await create.mutateAsync({
        name,
        expiresInDays: expires === 'never' ? null : Number(expires),
        scopes: readOnly ? ['read'] : ['read', 'write'],
        projectIds: projectIds.length > 0 ? projectIds.map(Number) : null,
      });
      setCreated(token);
      reset(EMPTY);
    } catch (error) {
      failure.report(errorMessage(error, 'Could not create the token.'));
    }
  });

  return (
    <Section title="API tokens" count={tokens.data?.length}>
      <p className="text-sm text-muted-foreground">
        A token lets a script or an AI assistant use Tasklane as you, with{' '}
        <code className="text-xs">Authorization: Bearer</code>. It cannot change your password or security
        settings.
      </p>
      {created && (
        <ShownOnce
          label={`API token ${created.name}`}
          message={`Your new token '${created.name}'. Copy it now: it is not shown again.`}
          value={created.token}
          onDone={() => setCreated(null)}
        />
      )}
      <form onSubmit={onSubmit} noValidate className="grid gap-3 sm:grid-cols-[1fr_10rem] sm:items-end">
        <FormAlert className="sm:col-span-2">{failure.error}</FormAlert>
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
