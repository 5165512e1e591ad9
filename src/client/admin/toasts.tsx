import { CheckIcon, CopyIcon } from 'lucide-react';
import { useState } from 'react';
import type { CredentialsResponse } from '../../common/admin';
import { ERRORS, TIMINGS } from '../../common/spec';
import { errorMessage } from '../lib/api';
import { Button } from '../ui/button';
import { toast } from '../ui/use-toast';

function Credentials({ username, password }: { username: string; password: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const copy = () =>
    navigator.clipboard.writeText(`Username: ${username}\nPassword: ${password}`).then(
      () => setCopied('yes'),
      // Another toast would replace this one and its password with it, so the button says so instead.
      () => setCopied('failed'),
    );
  return (
    <div className="mt-1 grid gap-2">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 rounded-md border bg-background/60 px-3 py-2 text-foreground">
        <dt className="text-muted-foreground">Username</dt>
        <dd className="font-mono break-all">{username}</dd>
        <dt className="text-muted-foreground">Password</dt>
        <dd className="font-mono break-all">{password}</dd>
      </dl>
      <div className="flex items-center justify-between gap-2">
        <span className="text-xs">Shown only once; also e-mailed to the user.</span>
        <Button variant="outline" size="sm" onClick={copy}>
          {copied === 'yes' ? <CheckIcon aria-hidden /> : <CopyIcon aria-hidden />}
          {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
        </Button>
      </div>
    </div>
  );
}

/** Spec §9: credentials stay on screen 10 seconds, the only time the admin sees the password. */
export function showCredentials(title: string, { user, password }: CredentialsResponse) {
  toast({
    title,
    description: <Credentials username={user.username} password={password} />,
    duration: TIMINGS.toastCredentialsMs,
  });
}

/** Spec §8: the catalogue's words as the title, the server's reason under it. */
export function showFailure(title: string, error: unknown) {
  toast({
    variant: 'destructive',
    title,
    description: errorMessage(error, 'Please try again.', ERRORS.network),
  });
}
