import { LabIcon } from '@jupyterlab/ui-components';

import chipSvgstr from '../style/icons/chip.svg';

/** The sidebar tab's icon; themed through the jp-icon3 class inside the SVG. */
export const chipIcon = new LabIcon({
  name: 'jupyter-accel:chip',
  svgstr: chipSvgstr
});
