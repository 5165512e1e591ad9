import { describeAccessibility, VIEWPORTS } from './accessibility';

describeAccessibility(VIEWPORTS.desktop);
