import type { ReactElement } from 'react';
import { TIMINGS } from '../../common/spec';
import { Tooltip, TooltipContent, TooltipTrigger } from '../ui/tooltip';

/**
 * A task card's tooltip (spec §9: 200 ms delay). Until `enabled` the child renders alone: a Radix
 * tooltip per card is a third of the time it takes to draw a list of a thousand tasks.
 */
export function CardTooltip({
  enabled = true,
  content,
  children,
}: {
  enabled?: boolean;
  content: string;
  children: ReactElement;
}) {
  if (!enabled) return children;
  return (
    <Tooltip delayDuration={TIMINGS.cardTooltipDelayMs}>
      <TooltipTrigger asChild>{children}</TooltipTrigger>
      <TooltipContent>{content}</TooltipContent>
    </Tooltip>
  );
}
