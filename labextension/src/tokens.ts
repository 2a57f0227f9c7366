/**
 * Identifiers shared across the extension, and the token other plugins use to
 * reach the model.
 */
import { Token } from '@lumino/coreutils';

import type { AccelModel } from './model';

/** Id of the main plugin; also the settings schema id (schema/plugin.json). */
export const PLUGIN_ID = 'jupyter-accel:plugin';

/** DOM id of the sidebar panel (used by the layout restorer and tests). */
export const PANEL_ID = 'jupyter-accel-panel';

/** Palette category of every command. */
export const COMMAND_CATEGORY = 'Accelerators';

export namespace CommandIDs {
  export const openPanel = 'jupyter-accel:open-panel';
  export const refresh = 'jupyter-accel:refresh';
  export const launchJob = 'jupyter-accel:launch-job';
  export const openJob = 'jupyter-accel:open-job';
  export const runAsJob = 'jupyter-accel:run-as-job';
}

/** The model behind the panel: the /info state, polled while the panel shows. */
export const IAccelModel = new Token<AccelModel>(
  'jupyter-accel:IAccelModel',
  'The jupyter-accel connection model (GET /info, polled).'
);
