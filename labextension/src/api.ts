/**
 * The REST client of the jupyter-accel server extension: one `requestAPI`
 * helper and a typed wrapper per endpoint. Wire types come from
 * `generated/api.ts` (openapi-typescript over docs/openapi.json), so the
 * front-end can never silently drift from the server's models.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import type { components } from './generated/api';

type Schemas = components['schemas'];

export type InfoResponse = Schemas['InfoResponse'];
export type Connection = Schemas['Connection'];
export type ConnectionState = Schemas['ConnectionState'];
export type Degraded = Schemas['Degraded'];
export type Capabilities = Schemas['Capabilities'];
export type ApiAvailability = Schemas['ApiAvailability'];
export type Permission = Schemas['Permission'];
export type ErrorResponse = Schemas['ErrorResponse'];
export type FieldError = Schemas['FieldError'];
export type InventoryResponse = Schemas['InventoryResponse'];
export type InventoryNodesResponse = Schemas['InventoryNodesResponse'];
export type AcceleratorModelSummary = Schemas['AcceleratorModelSummary'];
export type AcceleratorOnNode = Schemas['AcceleratorOnNode'];
export type NodeAccelerators = Schemas['NodeAccelerators'];
export type HardwareProfilesResponse = Schemas['HardwareProfilesResponse'];
export type HardwareProfileView = Schemas['HardwareProfileView'];
export type QueuesResponse = Schemas['QueuesResponse'];
export type QueueView = Schemas['QueueView'];
export type FlavorQuota = Schemas['FlavorQuota'];
export type ResourceQuota = Schemas['ResourceQuota'];
export type Visibility = Schemas['Visibility'];
export type JobsResponse = Schemas['JobsResponse'];
export type JobView = Schemas['JobView'];
export type JobKind = Schemas['JobKind'];
export type JobKindInfo = Schemas['JobKindInfo'];
export type JobStatus = Schemas['JobStatus'];
export type JobDetail = Schemas['JobDetail'];
export type JobRequest = Schemas['JobRequest'];
export type EventView = Schemas['EventView'];
export type JobLogs = Schemas['JobLogs'];
export type LogPod = Schemas['LogPod'];
export type PodSummary = Schemas['PodSummary'];
export type FitResponse = Schemas['FitResponse'];
export type FitVerdict = Schemas['FitVerdict'];
export type SubmitResponse = Schemas['SubmitResponse'];
export type TimeLimitRequest = Schemas['TimeLimitRequest'];
export type RayPackage = Schemas['RayPackage'];
export type UtilizationResponse = Schemas['UtilizationResponse'];
export type JobUtilization = Schemas['JobUtilization'];
export type JobUtilizationDetail = Schemas['JobUtilizationDetail'];
export type DeviceSeries = Schemas['DeviceSeries'];
export type QueueUsageResponse = Schemas['QueueUsageResponse'];
export type QueueUsageSeries = Schemas['QueueUsageSeries'];
export type MetricsSource = Schemas['MetricsSource'];
export type RayPackageRequest = Schemas['RayPackageRequest'];
export type DataSourcesResponse = Schemas['DataSourcesResponse'];
export type WorkbenchView = Schemas['WorkbenchView'];
export type WorkbenchProfileRequest = Schemas['WorkbenchProfileRequest'];
export type WorkbenchProfileResponse = Schemas['WorkbenchProfileResponse'];
export type ClaimView = Schemas['ClaimView'];

/** Which jobs GET /jobs lists. */
export type JobScope = 'mine' | 'namespace';

/** URL prefix of every endpoint, below the server's base URL. */
export const API_NAMESPACE = 'accel/v1';

/**
 * An answer of the server extension that is not 2xx. `message` is the
 * server's sentence (ErrorResponse.message) when it sent one.
 */
export class AccelAPIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Partial<ErrorResponse> = {}
  ) {
    super(message);
    this.name = 'AccelAPIError';
  }

  /** Dotted path of the offending request field, for 400s. */
  get field(): string | null {
    return this.body.field ?? null;
  }
}

/** Thrown when the server cannot be reached at all (offline, restarting). */
export class AccelNetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccelNetworkError';
  }
}

/**
 * Call `{baseUrl}accel/v1/{endPoint}` and return the parsed JSON body.
 *
 * Every failure becomes an `AccelAPIError` (the server answered) or an
 * `AccelNetworkError` (it did not), each with a sentence fit for the UI.
 */
export async function requestAPI<T>(
  endPoint: string,
  settings: ServerConnection.ISettings,
  init: RequestInit = {}
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, API_NAMESPACE, endPoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new AccelNetworkError(
      `The Jupyter server cannot be reached: ${errorText(error)}`
    );
  }

  const text = await response.text();
  const body = parseJSON(text);
  if (!response.ok) {
    throw new AccelAPIError(
      response.status,
      errorSentence(response.status, body),
      isRecord(body) ? (body as Partial<ErrorResponse>) : {}
    );
  }
  return body as T;
}

/** GET /info: the server's version, its Kubernetes connection and capabilities. */
export function fetchInfo(
  settings: ServerConnection.ISettings
): Promise<InfoResponse> {
  return requestAPI<InfoResponse>('info', settings);
}

export function fetchInventory(
  settings: ServerConnection.ISettings
): Promise<InventoryResponse> {
  return requestAPI<InventoryResponse>('inventory', settings);
}

/** GET inventory/nodes: one page of the nodes with a model (by its key), by name. */
export function fetchInventoryNodes(
  settings: ServerConnection.ISettings,
  model: string,
  offset: number,
  limit: number
): Promise<InventoryNodesResponse> {
  const query = new URLSearchParams({
    model,
    offset: String(offset),
    limit: String(limit)
  });
  return requestAPI<InventoryNodesResponse>(
    `inventory/nodes?${query.toString()}`,
    settings
  );
}

export function fetchProfiles(
  settings: ServerConnection.ISettings
): Promise<HardwareProfilesResponse> {
  return requestAPI<HardwareProfilesResponse>('profiles', settings);
}

/** GET /data: the PVCs and connections a job of the namespace can mount. */
export function fetchDataSources(
  settings: ServerConnection.ISettings
): Promise<DataSourcesResponse> {
  return requestAPI<DataSourcesResponse>('data', settings);
}

/** GET /workbench: the Notebook this server runs in. */
export function fetchWorkbench(
  settings: ServerConnection.ISettings
): Promise<WorkbenchView> {
  return requestAPI<WorkbenchView>('workbench', settings);
}

/** POST /workbench/profile: preview (dry_run) or patch the Notebook's hardware profile. */
export function postWorkbenchProfile(
  settings: ServerConnection.ISettings,
  request: WorkbenchProfileRequest
): Promise<WorkbenchProfileResponse> {
  return requestAPI<WorkbenchProfileResponse>('workbench/profile', settings, {
    method: 'POST',
    body: JSON.stringify(request)
  });
}

export function fetchQueues(
  settings: ServerConnection.ISettings
): Promise<QueuesResponse> {
  return requestAPI<QueuesResponse>('queues', settings);
}

export function fetchJobs(
  settings: ServerConnection.ISettings,
  scope: JobScope
): Promise<JobsResponse> {
  return requestAPI<JobsResponse>(`jobs?scope=${scope}`, settings);
}

/** POST /fit: the verdict for a request, without side effects. */
export function postFit(
  settings: ServerConnection.ISettings,
  request: JobRequest,
  signal?: AbortSignal
): Promise<FitResponse> {
  return requestAPI<FitResponse>('fit', settings, {
    method: 'POST',
    body: JSON.stringify(request),
    signal
  });
}

/** POST /jobs; the same client_request_id answers with the same job. */
export function submitJob(
  settings: ServerConnection.ISettings,
  request: JobRequest
): Promise<SubmitResponse> {
  return requestAPI<SubmitResponse>('jobs', settings, {
    method: 'POST',
    body: JSON.stringify(request)
  });
}

/** Send a Ray job to a running Ray cluster: Ray's Jobs API through the server's proxy of its dashboard. */
export function submitRayJob(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string,
  entrypoint: string,
  runtimeEnv: Record<string, unknown> | null = null
): Promise<{ submission_id: string }> {
  const body = runtimeEnv
    ? { entrypoint, runtime_env: runtimeEnv }
    : { entrypoint };
  return requestAPI<{ submission_id: string }>(
    rayJobsPath(kind, name),
    settings,
    { method: 'POST', body: JSON.stringify(body) }
  );
}

/** Pack a folder of the server's files as Ray's package and upload it to the running cluster. */
export function uploadRayPackage(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string,
  workdir: string
): Promise<RayPackage> {
  const body: RayPackageRequest = { workdir };
  return requestAPI<RayPackage>(
    `${jobPath(kind, name)}/ray-package`,
    settings,
    {
      method: 'POST',
      body: JSON.stringify(body)
    }
  );
}

/** GET /utilization: the running jobs' accelerators (the cluster's metrics API). */
export function fetchUtilization(
  settings: ServerConnection.ISettings,
  scope: JobScope
): Promise<UtilizationResponse> {
  return requestAPI<UtilizationResponse>(
    `utilization?scope=${scope}`,
    settings
  );
}

/** GET jobs/{kind}/{name}/utilization: one job's devices over its life. */
export function fetchJobUtilization(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string
): Promise<JobUtilizationDetail> {
  return requestAPI<JobUtilizationDetail>(
    `${jobPath(kind, name)}/utilization`,
    settings
  );
}

/** GET queues/usage: the queues' use over the last hours (Kueue's metrics). */
export function fetchQueueUsage(
  settings: ServerConnection.ISettings
): Promise<QueueUsageResponse> {
  return requestAPI<QueueUsageResponse>('queues/usage', settings);
}

/** Ray's Jobs API of a job's cluster behind the dashboard proxy: the list, or one submission (its `logs`). */
export function rayJobsPath(
  kind: JobKind,
  name: string,
  submission?: string,
  rest = ''
): string {
  const one = submission ? `${encodeURIComponent(submission)}${rest}` : '';
  return `${jobPath(kind, name)}/dashboard/api/jobs/${one}`;
}

/** `jobs/{kind}/{name}`, with both parts escaped. */
export function jobPath(kind: JobKind, name: string): string {
  return `jobs/${encodeURIComponent(kind)}/${encodeURIComponent(name)}`;
}

export function fetchJobDetail(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string
): Promise<JobDetail> {
  return requestAPI<JobDetail>(jobPath(kind, name), settings);
}

export async function deleteJob(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string
): Promise<void> {
  await requestAPI<null>(jobPath(kind, name), settings, { method: 'DELETE' });
}

export function setSuspended(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string,
  suspend: boolean
): Promise<JobView> {
  const action = suspend ? 'suspend' : 'resume';
  return requestAPI<JobView>(`${jobPath(kind, name)}/${action}`, settings, {
    method: 'POST'
  });
}

/** POST jobs/{kind}/{name}/limit: a new time limit, within the admin's ceiling. */
export function setTimeLimit(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string,
  body: TimeLimitRequest
): Promise<JobView> {
  return requestAPI<JobView>(`${jobPath(kind, name)}/limit`, settings, {
    method: 'POST',
    body: JSON.stringify(body)
  });
}

/**
 * Open a streaming GET (logs, the SSE stream) and return the Response once
 * its status is known; a non-2xx answer becomes an AccelAPIError.
 */
export async function openStream(
  endPoint: string,
  settings: ServerConnection.ISettings,
  signal: AbortSignal
): Promise<Response> {
  const url = URLExt.join(settings.baseUrl, API_NAMESPACE, endPoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, { signal }, settings);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    throw new AccelNetworkError(
      `The Jupyter server cannot be reached: ${errorText(error)}`
    );
  }
  if (!response.ok) {
    const body = parseJSON(await response.text());
    throw new AccelAPIError(
      response.status,
      errorSentence(response.status, body),
      isRecord(body) ? (body as Partial<ErrorResponse>) : {}
    );
  }
  return response;
}

/** Browser URL of a server path such as JobDetail.dashboard_path. */
export function serverURL(
  settings: ServerConnection.ISettings,
  path: string
): string {
  return URLExt.join(settings.baseUrl, path);
}

function errorSentence(status: number, body: unknown): string {
  if (isRecord(body) && typeof body.message === 'string' && body.message) {
    return body.message;
  }
  if (status === 404) {
    // A 404 on our own namespace means the server half is missing, not a bug.
    return 'The jupyter-accel server extension is not installed or not enabled on this Jupyter server.';
  }
  return `The server answered ${status} without an explanation.`;
}

function parseJSON(text: string): unknown {
  if (!text) {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
