import { ChevronDownIcon } from 'lucide-react';
import type { ComponentProps } from 'react';
import type { AiContext } from '../../common/agents';
import { COPY } from '../../common/spec';
import { cn } from '../lib/cn';
import { fieldClasses } from '../ui/input';
import { useAiContexts } from './api';

export interface AgentSelectProps {
  id?: string;
  value: number | null;
  onChange(value: number | null): void;
  disabled?: boolean;
}

/** Spec §2: what the picker shows for an agent id: its title, 'Unknown Agent' or 'No Agent'. */
export function agentLabel(contexts: AiContext[] | undefined, id: number | null): string {
  if (id === null) return COPY.noAgent;
  return contexts?.find((c) => c.id === id)?.title ?? COPY.unknownAgent;
}

/**
 * The agent picker ('No Agent' plus each of the user's agents). A native select: it opens no portal,
 * so choosing an agent never counts as a click outside the card, and phones show their own picker.
 * Extra props (aria-invalid and aria-describedby from a FormField) go to the select.
 */
export function AgentSelect({
  id,
  value,
  onChange,
  disabled,
  className,
  ...selectProps
}: AgentSelectProps & Omit<ComponentProps<'select'>, keyof AgentSelectProps | 'value' | 'onChange'>) {
  const contexts = useAiContexts();
  // An assigned agent missing from the list (deleted elsewhere) still needs an option to show as;
  // until the list arrives it is not yet unknown, just unnamed.
  const listed = value === null || contexts.data?.some((c) => c.id === value);
  return (
    <div className={cn('relative', className)}>
      <select
        id={id}
        value={value ?? ''}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value ? Number(event.target.value) : null)}
        className={cn(fieldClasses, 'h-9 cursor-pointer appearance-none truncate py-1 pr-9')}
        {...selectProps}
      >
        <option value="">{COPY.noAgent}</option>
        {!listed && (
          <option value={value} hidden>
            {contexts.isPending ? '' : COPY.unknownAgent}
          </option>
        )}
        {contexts.data?.map((context) => (
          <option key={context.id} value={context.id}>
            {context.title}
          </option>
        ))}
      </select>
      <ChevronDownIcon
        aria-hidden
        className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 opacity-50"
      />
    </div>
  );
}
