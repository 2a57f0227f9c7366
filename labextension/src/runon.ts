/**
 * "Run on…" a running Ray cluster: ask for a command, send it as a Ray job
 * through the server (Ray's Jobs API behind the dashboard proxy), and say
 * what was sent. The job's detail lists it under "Ray jobs on it".
 */
import { InputDialog, Notification } from '@jupyterlab/apputils';
import { ServerConnection } from '@jupyterlab/services';

import { JobView, submitRayJob } from './api';

/** The Ray submission id, or null when cancelled or refused. */
export async function runOnCluster(
  settings: ServerConnection.ISettings,
  job: JobView
): Promise<string | null> {
  const result = await InputDialog.getText({
    title: `Run on ${job.name}`,
    label: 'Command, run as a Ray job on the cluster (its head runs it)',
    placeholder:
      'python -c "import ray; ray.init(); print(ray.cluster_resources())"'
  });
  const entrypoint = (result.value ?? '').trim();
  if (!result.button.accept || !entrypoint) {
    return null;
  }
  try {
    const { submission_id } = await submitRayJob(
      settings,
      job.kind,
      job.name,
      entrypoint
    );
    return submission_id;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    Notification.error(`Run on ${job.name}: ${text}`, { autoClose: 8000 });
    return null;
  }
}
