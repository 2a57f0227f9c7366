/**
 * "Run on…" a running Ray cluster: ask for a command (and, optionally, a
 * folder of your files it runs in), send it as a Ray job through the server
 * (the folder packed by the server as Ray's own package, then Ray's Jobs API
 * behind the dashboard proxy), and say what was sent. The job's detail lists
 * it under "Ray jobs on it".
 */
import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { JobView, submitRayJob, uploadRayPackage } from './api';

interface IRunOn {
  entrypoint: string;
  workdir: string;
}

/** The dialog's two inputs. */
class RunOnBody extends Widget implements Dialog.IBodyWidget<IRunOn> {
  constructor() {
    super();
    this.addClass('jp-accel-run-on');
    this._entrypoint = this._input(
      'Command, run as a Ray job on the cluster (its head runs it)',
      'python train.py --epochs 3'
    );
    this._workdir = this._input(
      'Working dir (optional): a folder of your files it runs in',
      'projects/train'
    );
  }

  getValue(): IRunOn {
    return {
      entrypoint: this._entrypoint.value.trim(),
      workdir: this._workdir.value.trim()
    };
  }

  private _input(label: string, placeholder: string): HTMLInputElement {
    const field = document.createElement('label');
    field.className = 'jp-accel-field';
    field.textContent = label;
    const input = document.createElement('input');
    input.className = 'jp-mod-styled';
    input.placeholder = placeholder;
    field.appendChild(input);
    this.node.appendChild(field);
    return input;
  }

  private _entrypoint: HTMLInputElement;
  private _workdir: HTMLInputElement;
}

/** The Ray submission id, or null when cancelled or refused. */
export async function runOnCluster(
  settings: ServerConnection.ISettings,
  job: JobView
): Promise<string | null> {
  const result = await showDialog({
    title: `Run on ${job.name}`,
    body: new RunOnBody(),
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Run' })]
  });
  const asked = result.value;
  if (!result.button.accept || !asked?.entrypoint) {
    return null;
  }
  return sendRayJob(settings, job, asked.entrypoint, asked.workdir);
}

/** Send one Ray job (its working dir uploaded first); errors become a notification. */
export async function sendRayJob(
  settings: ServerConnection.ISettings,
  job: JobView,
  entrypoint: string,
  workdir: string
): Promise<string | null> {
  try {
    const env = workdir
      ? {
          working_dir: (
            await uploadRayPackage(settings, job.kind, job.name, workdir)
          ).uri
        }
      : null;
    const { submission_id } = await submitRayJob(
      settings,
      job.kind,
      job.name,
      entrypoint,
      env
    );
    return submission_id;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    Notification.error(`Run on ${job.name}: ${text}`, { autoClose: 8000 });
    return null;
  }
}
