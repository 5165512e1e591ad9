import type { ReactElement } from 'react';
import { TIMINGS } from '../../common/spec';
import { Tooltip, TooltipContent, TooltipTrigger } from '../ui/tooltip';

/**
 * A task card's tooltip (spec §9: 200 ms delay). It wraps its trigger from the first render: mounting
 * it later, on hover or focus, would replace the button under the pointer and lose the click or focus.
 */
export function CardTooltip({ content, children }: { content: string; children: ReactElement }) {
  return (
    <Tooltip delayDuration={TIMINGS.cardTooltipDelayMs}>
      <TooltipTrigger asChild>{children}</TooltipTrigger>
      <TooltipContent>{content}</TooltipContent>
    </Tooltip>
  );
}
