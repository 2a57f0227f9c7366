/**
 * Wiring only: build the models and panel, register commands and settings.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  Dialog,
  ICommandPalette,
  InputDialog,
  MainAreaWidget,
  Notification,
  showDialog,
  WidgetTracker
} from '@jupyterlab/apputils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import {
  deleteJob,
  fetchDataSources,
  fetchWorkbench,
  postWorkbenchProfile,
  fetchInfo,
  fetchInventory,
  fetchInventoryNodes,
  fetchJobs,
  fetchProfiles,
  fetchQueues,
  fetchQueueUsage,
  fetchUtilization,
  JobKind,
  JobView,
  postFit,
  setSuspended,
  submitJob
} from './api';
import { ClusterModel, IJobTransition } from './cluster';
import { createJobDetail, detailId, IJobRef } from './detail';
import { extendJob } from './extend';
import { runAsJobPreset } from './launch';
import { runOnCluster } from './runon';
import { chipIcon } from './icons';
import { AccelModel, DEFAULT_TIMING } from './model';
import { AccelPanel } from './panel';
import { kindLabel } from './present';
import { ChangeStream } from './sse';
import {
  COMMAND_CATEGORY,
  CommandIDs,
  IAccelModel,
  PANEL_ID,
  PLUGIN_ID
} from './tokens';
import { IClusterActions } from './views';

const NOTE_TEXT: Record<IJobTransition['category'], string> = {
  admitted: 'was admitted',
  finished: 'finished',
  failed: 'failed',
  stopped: 'was stopped at its time limit'
};

const plugin: JupyterFrontEndPlugin<AccelModel> = {
  id: PLUGIN_ID,
  description:
    'Accelerators, Kueue quotas and distributed jobs of the Kubernetes cluster.',
  autoStart: true,
  provides: IAccelModel,
  optional: [
    ICommandPalette,
    ISettingRegistry,
    ILayoutRestorer,
    IDefaultFileBrowser
  ],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    restorer: ILayoutRestorer | null,
    browser: IDefaultFileBrowser | null
  ): AccelModel => {
    const serverSettings = app.serviceManager.serverSettings;
    const model = new AccelModel({
      fetchInfo: () => fetchInfo(serverSettings)
    });
    const cluster = new ClusterModel({
      fetchers: {
        inventory: () => fetchInventory(serverSettings),
        inventoryNodes: (key, offset, limit) =>
          fetchInventoryNodes(serverSettings, key, offset, limit),
        profiles: () => fetchProfiles(serverSettings),
        queues: () => fetchQueues(serverSettings),
        jobs: scope => fetchJobs(serverSettings, scope),
        utilization: scope => fetchUtilization(serverSettings, scope),
        queueUsage: () => fetchQueueUsage(serverSettings)
      },
      source: new ChangeStream(serverSettings)
    });
    // a push naming `info` (the API server slow, throttling, failing, or recovered): read /info again now
    cluster.infoChanged.connect(() => void model.refresh());
    const tracker = new WidgetTracker<MainAreaWidget>({
      namespace: 'jupyter-accel-job'
    });
    const refs = new WeakMap<MainAreaWidget, IJobRef>();

    const openJob = (ref: IJobRef): MainAreaWidget => {
      const existing = tracker.find(w => w.id === detailId(ref));
      if (existing) {
        app.shell.activateById(existing.id);
        return existing;
      }
      const widget = createJobDetail(ref, serverSettings, cluster);
      refs.set(widget, ref);
      void tracker.add(widget);
      app.shell.add(widget, 'main');
      app.shell.activateById(widget.id);
      return widget;
    };

    const actions: IClusterActions = {
      openJob: job => void openJob({ kind: job.kind, name: job.name }),
      suspend: async (job, suspend) => {
        try {
          await setSuspended(serverSettings, job.kind, job.name, suspend);
          await cluster.refetch(['jobs']);
        } catch (error) {
          Notification.error(
            `${suspend ? 'Suspend' : 'Resume'} ${job.name}: ${message(error)}`,
            { autoClose: 8000 }
          );
        }
      },
      runOn: async job => {
        const id = await runOnCluster(serverSettings, job);
        if (id) {
          Notification.success(`Ray job ${id} sent to ${job.name}`, {
            autoClose: 6000,
            actions: [{ label: 'Open', callback: () => void openJob(job) }]
          });
        }
      },
      extend: async job => {
        if (await extendJob(serverSettings, job)) {
          await cluster.refetch(['jobs']);
        }
      },
      remove: async job => {
        const result = await showDialog({
          title: `Delete ${job.name}?`,
          body: `The ${kindLabel(job.kind)} ${job.name} and its pods will be deleted; its logs are lost.`,
          buttons: [
            Dialog.cancelButton(),
            Dialog.warnButton({ label: 'Delete' })
          ]
        });
        if (!result.button.accept) {
          return;
        }
        try {
          await deleteJob(serverSettings, job.kind, job.name);
          cluster.removeJob(job);
        } catch (error) {
          Notification.error(`Delete ${job.name}: ${message(error)}`, {
            autoClose: 8000
          });
        }
      },
      fit: (request, signal) => postFit(serverSettings, request, signal),
      submit: request => submitJob(serverSettings, request),
      dataSources: () => fetchDataSources(serverSettings),
      workbench: () => fetchWorkbench(serverSettings),
      changeWorkbenchProfile: async (request, warning) => {
        if (!request.dry_run) {
          const result = await showDialog({
            title: `Change this workbench to ${request.hardware_profile}?`,
            body: warning ?? '',
            buttons: [
              Dialog.cancelButton(),
              Dialog.warnButton({ label: 'Change profile' })
            ]
          });
          if (!result.button.accept) {
            return null;
          }
        }
        return postWorkbenchProfile(serverSettings, request);
      }
    };

    const panel = new AccelPanel({ model, cluster, actions });
    app.shell.add(panel, 'left', { rank: 1000, type: 'Accelerators' });
    restorer?.add(panel, PANEL_ID);

    // a job whose every accelerator sat unused for the admin's time: said once, with what fixes it
    cluster.idleJobs.connect((_, idle) => {
      for (const use of idle) {
        const job = cluster.findJob(use.kind, use.name);
        Notification.warning(
          `${kindLabel(use.kind)} ${use.name} holds ${use.idle}.`,
          {
            autoClose: false,
            actions: [
              { label: 'Open', callback: () => void openJob(use) },
              ...(job && job.display.actions.includes('suspend')
                ? [
                    {
                      label: 'Suspend',
                      callback: () => void actions.suspend(job, true)
                    }
                  ]
                : [])
            ]
          }
        );
      }
    });
    cluster.jobTransitions.connect((_, transitions) => {
      for (const t of transitions) {
        const text = `${kindLabel(t.job.kind)} ${t.job.name} ${NOTE_TEXT[t.category]}: ${t.job.display.sentence}`;
        const options = {
          autoClose: t.category === 'failed' ? (false as const) : 6000,
          actions: [
            {
              label: 'Open',
              callback: () => void openJob(t.job)
            }
          ]
        };
        if (t.category === 'failed') {
          Notification.error(text, options);
        } else if (t.category === 'stopped') {
          Notification.warning(text, { ...options, autoClose: false });
        } else if (t.category === 'finished') {
          Notification.success(text, options);
        } else {
          Notification.info(text, options);
        }
      }
    });

    app.commands.addCommand(CommandIDs.openPanel, {
      label: 'Accelerators: Open panel',
      caption: 'Show the Accelerators sidebar panel',
      icon: chipIcon,
      execute: () => app.shell.activateById(panel.id)
    });
    app.commands.addCommand(CommandIDs.refresh, {
      label: 'Accelerators: Refresh',
      caption: 'Ask the server for the connection state and cluster data now',
      execute: async () => {
        await model.refresh();
        if (!cluster.paused) {
          await cluster.refresh();
        }
      }
    });
    app.commands.addCommand(CommandIDs.launchJob, {
      label: 'Accelerators: Launch job',
      caption: 'Open the launch form of the Accelerators panel',
      execute: () => {
        app.shell.activateById(panel.id);
        panel.clusterView?.expand('launch');
      }
    });
    // "Run as a job…" on a folder or a Python file of the file browser: the launch form, filled in
    const selected = () => {
      const item = browser?.selectedItems().next();
      return item && !item.done ? item.value : null;
    };
    app.commands.addCommand(CommandIDs.runAsJob, {
      label: 'Run as a job…',
      caption:
        'Launch a job that runs this folder (its working dir) or this Python file',
      icon: chipIcon,
      isVisible: () => {
        const item = selected();
        return (
          !!item &&
          (item.type === 'directory' || item.name.endsWith('.py')) &&
          runAsJobPreset(item.path, item.type === 'directory') !== null
        );
      },
      execute: () => {
        const item = selected();
        const preset = item
          ? runAsJobPreset(item.path, item.type === 'directory')
          : null;
        if (preset) {
          app.shell.activateById(panel.id);
          panel.clusterView?.expand('launch', preset);
        }
      }
    });
    app.contextMenu.addItem({
      command: CommandIDs.runAsJob,
      selector: '.jp-DirListing-item[data-isdir]',
      rank: 60
    });
    app.commands.addCommand(CommandIDs.openJob, {
      label: args =>
        args.name ? `Open job ${args.name}` : 'Accelerators: Open job…',
      caption: 'Open the detail tab of a job (status, events, pods, logs)',
      execute: async args => {
        let kind = args.kind as JobKind | undefined;
        let name = args.name as string | undefined;
        if (!kind || !name) {
          const jobs: JobView[] = cluster.jobs.data?.jobs ?? [];
          const items = jobs.map(j => `${j.kind}/${j.name}`);
          const answer = items.length
            ? await InputDialog.getItem({ title: 'Open job', items })
            : await InputDialog.getText({
                title: 'Open job (kind/name, e.g. pytorch/train-1)'
              });
          if (!answer.button.accept || !answer.value) {
            return;
          }
          [kind, name] = answer.value.split('/', 2) as [JobKind, string];
        }
        if (kind && name) {
          return openJob({ kind, name });
        }
      }
    });
    for (const command of [
      CommandIDs.openPanel,
      CommandIDs.refresh,
      CommandIDs.launchJob,
      CommandIDs.openJob
    ]) {
      palette?.addItem({ command, category: COMMAND_CATEGORY });
    }
    if (restorer) {
      void restorer.restore(tracker, {
        command: CommandIDs.openJob,
        args: widget => ({ ...(refs.get(widget) ?? {}) }),
        name: widget => widget.id
      });
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export default plugin;
