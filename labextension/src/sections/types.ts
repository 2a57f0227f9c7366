/** What the sidebar's sections share: the actions they may ask the app for, and their ids and titles. */
import type {
  DataSourcesResponse,
  FitResponse,
  JobRequest,
  JobView,
  SubmitResponse,
  WorkbenchProfileRequest,
  WorkbenchProfileResponse,
  WorkbenchView
} from '../api';

/** What the sections can ask the app to do. */
export interface IClusterActions {
  openJob(job: JobView): void;
  suspend(job: JobView, suspend: boolean): Promise<void>;
  /** Ask how much longer it may run, then extend its time limit. */
  extend(job: JobView): Promise<void>;
  remove(job: JobView): Promise<void>;
  /** Ask for a command and send it to a running Ray cluster as a Ray job. */
  runOn?(job: JobView): Promise<void>;
  fit(request: JobRequest, signal: AbortSignal): Promise<FitResponse>;
  submit(request: JobRequest): Promise<SubmitResponse>;
  /** The PVCs and connections a job can mount (the launch form offers them). */
  dataSources?(): Promise<DataSourcesResponse>;
  /** This workbench's Notebook, and a change of its hardware profile (sections/workbench.tsx). */
  workbench?(): Promise<WorkbenchView>;
  /** Applying (not dry_run) asks the user first, with `warning` (the server's words); null when they decline. */
  changeWorkbenchProfile?(
    request: WorkbenchProfileRequest,
    warning?: string
  ): Promise<WorkbenchProfileResponse | null>;
}

export type SectionId =
  'workbench' | 'accelerators' | 'queues' | 'jobs' | 'launch';

export const SECTION_TITLES: Record<SectionId, string> = {
  workbench: 'This workbench',
  accelerators: 'Accelerators',
  queues: 'Queues',
  jobs: 'My jobs',
  launch: 'Launch'
};
