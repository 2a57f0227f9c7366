/**
 * Wiring only: build the model and panel, register commands and settings.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { fetchInfo } from './api';
import { chipIcon } from './icons';
import { AccelModel, DEFAULT_TIMING } from './model';
import { AccelPanel } from './panel';
import {
  COMMAND_CATEGORY,
  CommandIDs,
  IAccelModel,
  PANEL_ID,
  PLUGIN_ID
} from './tokens';

const plugin: JupyterFrontEndPlugin<AccelModel> = {
  id: PLUGIN_ID,
  description:
    'Accelerators, Kueue quotas and distributed jobs of the Kubernetes cluster.',
  autoStart: true,
  provides: IAccelModel,
  optional: [ICommandPalette, ISettingRegistry, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null
  ): AccelModel => {
    const serverSettings = app.serviceManager.serverSettings;
    const model = new AccelModel({
      fetchInfo: () => fetchInfo(serverSettings)
    });
    const panel = new AccelPanel({ model });
    app.shell.add(panel, 'left', { rank: 1000, type: 'Accelerators' });
    restorer?.add(panel, PANEL_ID);

    app.commands.addCommand(CommandIDs.openPanel, {
      label: 'Accelerators: Open panel',
      caption: 'Show the Accelerators sidebar panel',
      icon: chipIcon,
      execute: () => app.shell.activateById(panel.id)
    });
    app.commands.addCommand(CommandIDs.refresh, {
      label: 'Accelerators: Refresh',
      caption: 'Ask the server for the connection state now',
      execute: () => model.refresh()
    });
    for (const command of [CommandIDs.openPanel, CommandIDs.refresh]) {
      palette?.addItem({ command, category: COMMAND_CATEGORY });
    }

    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then(settings => {
          const apply = (): void => {
            model.configure({
              refreshInterval: settings.get('refreshInterval')
                .composite as number,
              maxBackoffInterval: settings.get('maxBackoffInterval')
                .composite as number
            });
            panel.showPermissions = settings.get('showPermissions')
              .composite as boolean;
          };
          apply();
          settings.changed.connect(apply);
        })
        .catch(reason => {
          console.error(
            `jupyter-accel: settings could not be loaded, using defaults (${DEFAULT_TIMING.refreshInterval} s).`,
            reason
          );
        });
    }
    return model;
  }
};

export default plugin;
