/**
 * Extending a job's time limit: ask how many hours more, send them, and say
 * what the server answered (it refuses past the admin's ceiling, naming it).
 */
import { InputDialog, Notification } from '@jupyterlab/apputils';
import { ServerConnection } from '@jupyterlab/services';

import { JobView, setTimeLimit } from './api';

/** The new view of the job, or null when cancelled or refused. */
export async function extendJob(
  settings: ServerConnection.ISettings,
  job: JobView
): Promise<JobView | null> {
  const result = await InputDialog.getNumber({
    title: `Extend the time limit of ${job.name}`,
    label: job.display.stopped_at_limit
      ? 'Hours its next run may use'
      : 'Hours more',
    value: 1
  });
  if (!result.button.accept || result.value === null || result.value <= 0) {
    return null;
  }
  try {
    return await setTimeLimit(settings, job.kind, job.name, {
      extend_seconds: Math.round(result.value * 3600),
      max_run_seconds: null
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    Notification.error(`Extend ${job.name}: ${text}`, { autoClose: 8000 });
    return null;
  }
}
