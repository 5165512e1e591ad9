import { CheckIcon, CopyIcon } from 'lucide-react';
import { type ReactNode, useId, useState } from 'react';
import { Button } from './button';
import { Input } from './input';
import { Label } from './label';
import { toast } from './use-toast';

/** One value to copy: `label` is its accessible name, and its visible label when several are shown. */
export type ShownOnceField = { label: string; value: string };

type ShownOnceProps = {
  /** The line above it: copy it now, it is not shown again. */
  message: string;
  /** 'Done' puts it away; without it, it stays until its parent drops it. */
  onDone?: () => void;
  /** A note under the values. */
  children?: ReactNode;
} & (
  | {
      /** What it is, for the field's accessible name ('Signing secret for …'). */
      label: string;
      value: string;
    }
  | {
      /** Several values that belong together (a CalDAV app's address, username and password), each labelled. */
      fields: ShownOnceField[];
    }
);

/** A read-only value with Copy; `labelled` shows its label above it (and names its Copy button). */
function CopyField({ label, value, labelled }: ShownOnceField & { labelled: boolean }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied(true),
      () => toast({ title: 'Could not copy: select it and copy it yourself.', variant: 'destructive' }),
    );
  return (
    <div className="grid gap-1.5">
      {labelled && (
        <Label htmlFor={id} className="text-sm">
          {label}
        </Label>
      )}
      <div className="flex gap-2">
        <Input
          id={id}
          readOnly
          name="shown-once"
          aria-label={labelled ? undefined : label}
          value={value}
          className="font-mono text-xs"
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button type="button" variant="outline" onClick={() => void copy()}>
          {copied ? <CheckIcon aria-hidden /> : <CopyIcon aria-hidden />}
          {copied ? 'Copied' : 'Copy'}
          {labelled && <span className="sr-only"> {label}</span>}
        </Button>
      </div>
    </div>
  );
}

/**
 * A secret the server answers once (a token, a webhook's signing secret, a feed's address), with Copy;
 * or several values that go together, each with its label and Copy.
 */
export function ShownOnce({ message, onDone, children, ...shown }: ShownOnceProps) {
  const fields = 'fields' in shown ? shown.fields : [{ label: shown.label, value: shown.value }];
  const labelled = 'fields' in shown;
  return (
    <div role="status" className="grid gap-2 rounded-lg border border-primary/40 bg-primary/5 px-4 py-3">
      <p className="text-sm font-medium">{message}</p>
      {fields.map((field) => (
        <CopyField key={field.label} {...field} labelled={labelled} />
      ))}
      {children}
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
