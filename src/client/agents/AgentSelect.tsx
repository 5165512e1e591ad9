import { COPY } from '../../common/spec';

export interface AgentSelectProps {
  id?: string;
  value: number | null;
  onChange(value: number | null): void;
  disabled?: boolean;
}

/** Seam: the agent picker ('No Agent' plus each agent). AI issue replaces it with the user's agents. */
export function AgentSelect({ id, value, onChange, disabled }: AgentSelectProps) {
  return (
    <select
      id={id}
      className="h-9 w-full rounded-md border border-input bg-background px-3 text-sm"
      value={value ?? ''}
      disabled={disabled}
      onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
    >
      <option value="">{COPY.noAgent}</option>
    </select>
  );
}
