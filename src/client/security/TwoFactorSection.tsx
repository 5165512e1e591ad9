import { useQueryClient } from '@tanstack/react-query';
import { CheckIcon, CopyIcon, DownloadIcon, ShieldCheckIcon, ShieldOffIcon } from 'lucide-react';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { TWO_FACTOR, TWO_FACTOR_MESSAGES, type TwoFactorSetup } from '../../common/two-factor';
import { errorMessage } from '../lib/api';
import { getSession, updateUser } from '../lib/session';
import { Badge } from '../ui/badge';
import { Button } from '../ui/button';
import { FormAlert, FormField, SubmitButton } from '../ui/form';
import { Input } from '../ui/input';
import { Section } from '../ui/section';
import { Skeleton } from '../ui/skeleton';
import { useSubmitError } from '../ui/use-submit-error';
import { toast } from '../ui/use-toast';
import {
  deviceSessionsKey,
  disableTwoFactor,
  enableTwoFactor,
  setUpTwoFactor,
  twoFactorStatusKey,
  useTwoFactorStatus,
} from './api';

const CODE_LABEL = 'Authentication code';

type Step =
  | { name: 'idle' }
  | { name: 'setup'; setup: TwoFactorSetup }
  | { name: 'codes'; codes: string[] }
  | { name: 'disable' };

/** Moves focus to the element once it is shown, so each step is announced where it starts. */
function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}

/** The QR code is drawn in the browser: the secret never leaves for an image service. */
function QrCode({ url }: { url: string }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let live = true;
    import('qrcode')
      .then((QRCode) => QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }))
      .then((svg) => {
        if (live) setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [url]);
  if (!src) return <Skeleton className="size-44" />;
  return (
    <img
      src={src}
      width={176}
      height={176}
      alt="QR code for your authenticator app. If you cannot scan it, enter the setup key shown beside it."
      className="size-44 rounded-md border bg-white p-1"
    />
  );
}

/** The secret in groups of four, as authenticator apps ask for it. */
const groupedSecret = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

function SetupStep({
  setup,
  onEnabled,
  onCancel,
}: {
  setup: TwoFactorSetup;
  onEnabled: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const headingRef = useFocusOnMount<HTMLHeadingElement>();
  const [code, setCode] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const [pending, setPending] = useState(false);
  const failure = useSubmitError({ inlineOnly: true });

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    failure.clear();
    setFieldError(undefined);
    if (!code.trim()) {
      setFieldError(TWO_FACTOR_MESSAGES.codeRequired);
      return;
    }
    setPending(true);
    try {
      const { recoveryCodes } = await enableTwoFactor({ code: code.trim() });
      onEnabled(recoveryCodes);
    } catch (error) {
      failure.report(errorMessage(error, 'Could not turn on two-factor authentication.'));
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="grid gap-4 rounded-lg border bg-card px-4 py-4">
      <h4 ref={headingRef} tabIndex={-1} className="text-sm font-medium outline-none">
        Scan the QR code with your authenticator app
      </h4>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
        <QrCode url={setup.otpauthUrl} />
        <div className="grid min-w-0 gap-2 text-sm">
          <p className="text-muted-foreground">
            Use an app such as Aegis, Google Authenticator, 1Password or Microsoft Authenticator. If you
            cannot scan, enter this setup key in the app instead:
          </p>
          <code className="rounded-md border bg-muted px-2 py-1.5 font-mono text-sm break-all select-all">
            {groupedSecret(setup.secret)}
          </code>
          <p className="text-muted-foreground">Then enter the 6-digit code the app shows.</p>
        </div>
      </div>
      <form onSubmit={(event) => void onSubmit(event)} noValidate className="grid gap-3">
        <FormAlert>{failure.error}</FormAlert>
        <FormField label={CODE_LABEL} error={fieldError}>
          <Input
            value={code}
            onChange={(event) => setCode(event.target.value)}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={64}
            placeholder="123456"
            className="max-w-48 font-mono tracking-widest"
          />
        </FormField>
        <div className="flex flex-wrap gap-2">
          <SubmitButton pending={pending}>Turn on</SubmitButton>
          <Button type="button" variant="outline" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  );
}

function RecoveryCodesStep({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const headingRef = useFocusOnMount<HTMLHeadingElement>();
  const [copied, setCopied] = useState(false);
  const text = [
    'Tasklane recovery codes',
    `Account: ${getSession()?.user.username ?? ''}`,
    'Each code signs in once, in place of a code from your authenticator app.',
    '',
    ...codes,
    '',
  ].join('\n');

  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'tasklane-recovery-codes.txt';
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () =>
        toast({ title: 'Could not copy: select the codes and copy them yourself.', variant: 'destructive' }),
    );

  return (
    <div className="grid gap-3 rounded-lg border border-primary/40 bg-primary/5 px-4 py-4">
      <h4 ref={headingRef} tabIndex={-1} className="text-sm font-medium outline-none">
        Two-factor authentication is on. Save your recovery codes
      </h4>
      <p className="text-sm text-muted-foreground">
        If you lose your phone, each of these codes signs you in once. Keep them somewhere safe, such as a
        password manager: they are not shown again.
      </p>
      <ol
        aria-label="Recovery codes"
        className="grid grid-cols-1 gap-x-6 gap-y-1 rounded-md border bg-background px-4 py-3 font-mono text-sm sm:grid-cols-2"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="outline" onClick={download}>
          <DownloadIcon aria-hidden />
          Download
        </Button>
        <Button type="button" variant="outline" onClick={() => void copy()}>
          {copied ? <CheckIcon aria-hidden /> : <CopyIcon aria-hidden />}
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button type="button" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

function DisableStep({ onDisabled, onCancel }: { onDisabled: () => void; onCancel: () => void }) {
  const headingRef = useFocusOnMount<HTMLHeadingElement>();
  const [values, setValues] = useState({ password: '', code: '' });
  const [errors, setErrors] = useState<{ password?: string; code?: string }>({});
  const [pending, setPending] = useState(false);
  const failure = useSubmitError({ inlineOnly: true });

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    failure.clear();
    const next = {
      password: values.password ? undefined : 'Password is required',
      code: values.code.trim() ? undefined : TWO_FACTOR_MESSAGES.codeRequired,
    };
    setErrors(next);
    if (next.password || next.code) return;
    setPending(true);
    try {
      await disableTwoFactor({ password: values.password, code: values.code.trim() });
      onDisabled();
    } catch (error) {
      failure.report(errorMessage(error, 'Could not turn off two-factor authentication.'));
    } finally {
      setPending(false);
    }
  };

  return (
    <form
      onSubmit={(event) => void onSubmit(event)}
      noValidate
      className="grid gap-3 rounded-lg border bg-card px-4 py-4"
    >
      <h4 ref={headingRef} tabIndex={-1} className="text-sm font-medium outline-none">
        Turn off two-factor authentication
      </h4>
      <p className="text-sm text-muted-foreground">
        Enter your password and a code from your authenticator app, or a recovery code.
      </p>
      <FormAlert>{failure.error}</FormAlert>
      <div className="grid gap-3 sm:grid-cols-2">
        <FormField label="Password" error={errors.password}>
          <Input
            type="password"
            autoComplete="current-password"
            value={values.password}
            onChange={(event) => setValues((v) => ({ ...v, password: event.target.value }))}
          />
        </FormField>
        <FormField label={CODE_LABEL} error={errors.code}>
          <Input
            autoComplete="one-time-code"
            maxLength={64}
            value={values.code}
            onChange={(event) => setValues((v) => ({ ...v, code: event.target.value }))}
            className="font-mono"
          />
        </FormField>
      </div>
      <div className="flex flex-wrap gap-2">
        <SubmitButton pending={pending} variant="destructive">
          Turn off
        </SubmitButton>
        <Button type="button" variant="outline" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** 'Two-factor authentication' in Security: set up with a QR code, recovery codes, turn off. */
export function TwoFactorSection() {
  const status = useTwoFactorStatus();
  const queryClient = useQueryClient();
  const [step, setStep] = useState<Step>({ name: 'idle' });
  const [starting, setStarting] = useState(false);
  const startRef = useRef<HTMLButtonElement>(null);

  /** The stored user says whether it is on (the user list, other tabs); the other sessions ended. */
  const refresh = (enabled: boolean) => {
    const user = getSession()?.user;
    if (user) updateUser({ ...user, twoFactorEnabled: enabled });
    void queryClient.invalidateQueries({ queryKey: twoFactorStatusKey });
    void queryClient.invalidateQueries({ queryKey: deviceSessionsKey });
  };

  const start = async () => {
    setStarting(true);
    try {
      setStep({ name: 'setup', setup: await setUpTwoFactor() });
    } catch (error) {
      toast({
        title: errorMessage(error, 'Could not start setting up two-factor authentication.'),
        variant: 'destructive',
      });
    } finally {
      setStarting(false);
    }
  };

  const backToIdle = () => {
    setStep({ name: 'idle' });
    // The step's controls are gone: focus returns to the section's own button.
    requestAnimationFrame(() => startRef.current?.focus());
  };

  const enabled = status.data?.enabled ?? false;

  return (
    <Section title="Two-factor authentication">
      <p className="text-sm text-muted-foreground">
        Sign in with your password and a 6-digit code from an authenticator app on your phone, so a stolen
        password alone is not enough.
      </p>
      {status.isPending ? (
        <Skeleton className="h-16" />
      ) : status.isError ? (
        <div
          role="alert"
          className="rounded-md border border-destructive/40 bg-destructive/10 px-3 py-3 text-sm"
        >
          Could not load your two-factor settings.{' '}
          <Button variant="link" size="sm" className="h-auto px-0" onClick={() => void status.refetch()}>
            Try again
          </Button>
        </div>
      ) : step.name === 'setup' ? (
        <SetupStep
          setup={step.setup}
          onCancel={backToIdle}
          onEnabled={(codes) => {
            refresh(true);
            setStep({ name: 'codes', codes });
          }}
        />
      ) : step.name === 'codes' ? (
        <RecoveryCodesStep codes={step.codes} onDone={backToIdle} />
      ) : step.name === 'disable' ? (
        <DisableStep
          onCancel={backToIdle}
          onDisabled={() => {
            refresh(false);
            toast({ title: 'Two-factor authentication is off.' });
            backToIdle();
          }}
        />
      ) : (
        <div className="flex flex-col gap-3 rounded-lg border bg-card px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
          <div className="flex min-w-0 items-start gap-3">
            {enabled ? (
              <ShieldCheckIcon aria-hidden className="mt-0.5 size-5 shrink-0 text-primary" />
            ) : (
              <ShieldOffIcon aria-hidden className="mt-0.5 size-5 shrink-0 text-muted-foreground" />
            )}
            <div className="grid min-w-0 gap-1">
              <div className="flex flex-wrap items-center gap-1.5">
                <span className="font-medium">Authenticator app</span>
                {enabled ? <Badge>On</Badge> : <Badge variant="outline">Off</Badge>}
              </div>
              <p className="text-sm text-muted-foreground">
                {enabled
                  ? `${status.data.recoveryCodesLeft} of ${TWO_FACTOR.recoveryCodeCount} recovery codes left.`
                  : 'Only your password is asked for at sign-in.'}
              </p>
            </div>
          </div>
          {enabled ? (
            <Button ref={startRef} variant="outline" size="sm" onClick={() => setStep({ name: 'disable' })}>
              Turn off
            </Button>
          ) : (
            <Button ref={startRef} size="sm" disabled={starting} onClick={() => void start()}>
              Set up two-factor authentication
            </Button>
          )}
        </div>
      )}
    </Section>
  );
}
