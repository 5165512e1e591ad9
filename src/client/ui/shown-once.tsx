import { CheckIcon, CopyIcon } from 'lucide-react';
import { useState } from 'react';
import { Button } from './button';
import { Input } from './input';
import { toast } from './use-toast';

type ShownOnceProps = {
  /** What it is, for the field's accessible name ('Signing secret for …'). */
  label: string;
  /** The line above it: copy it now, it is not shown again. */
  message: string;
  value: string;
  /** 'Done' puts it away; without it, it stays until its parent drops it. */
  onDone?: () => void;
};

/** A secret the server answers once (a token, a webhook's signing secret, a feed's address), with Copy. */
export function ShownOnce({ label, message, value, onDone }: ShownOnceProps) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied(true),
      () => toast({ title: 'Could not copy: select it and copy it yourself.', variant: 'destructive' }),
    );
  return (
    <div role="status" className="grid gap-2 rounded-lg border border-primary/40 bg-primary/5 px-4 py-3">
      <p className="text-sm font-medium">{message}</p>
      <div className="flex gap-2">
        <Input
          readOnly
          name="shown-once"
          aria-label={label}
          value={value}
          className="font-mono text-xs"
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button type="button" variant="outline" onClick={() => void copy()}>
          {copied ? <CheckIcon aria-hidden /> : <CopyIcon aria-hidden />}
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
      {onDone && (
        <div>
          <Button type="button" variant="link" size="sm" className="h-auto px-0" onClick={onDone}>
            Done
          </Button>
        </div>
      )}
    </div>
  );
}
