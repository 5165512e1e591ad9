import { PROJECT_COLORS, type ProjectColor } from '../../common/projects';
import { cn } from '../lib/cn';
import { PROJECT_COLOR_STYLES } from './colors';
import { PROJECT_COPY } from './copy';

/**
 * The palette's twelve colours as a group of radio buttons drawn as swatches: Tab reaches the
 * group, the arrow keys choose, and the legend names the colour chosen in words (a ring marks it).
 */
export function ColorPicker({
  name,
  value,
  onChange,
}: {
  name: string;
  value: ProjectColor;
  onChange: (color: ProjectColor) => void;
}) {
  return (
    <fieldset className="grid gap-2">
      <legend className="mb-2 text-sm leading-none font-medium">
        {PROJECT_COPY.colour}:{' '}
        <span className="font-normal text-muted-foreground">{PROJECT_COLOR_STYLES[value].label}</span>
      </legend>
      <div className="flex flex-wrap gap-1.5">
        {PROJECT_COLORS.map((color) => (
          <label key={color} title={PROJECT_COLOR_STYLES[color].label} className="relative flex size-8">
            <input
              type="radio"
              name={name}
              value={color}
              checked={value === color}
              onChange={() => onChange(color)}
              aria-label={PROJECT_COLOR_STYLES[color].label}
              className="peer absolute inset-0 cursor-pointer appearance-none rounded-full outline-none"
            />
            <span
              aria-hidden
              className={cn(
                'pointer-events-none m-auto size-6 rounded-full ring-offset-2 ring-offset-card transition-shadow peer-checked:ring-2 peer-checked:ring-foreground peer-focus-visible:outline-2 peer-focus-visible:outline-offset-4 peer-focus-visible:outline-ring',
                PROJECT_COLOR_STYLES[color].dot,
              )}
            />
          </label>
        ))}
      </div>
    </fieldset>
  );
}
