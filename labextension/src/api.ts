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
export type Capabilities = Schemas['Capabilities'];
export type ApiAvailability = Schemas['ApiAvailability'];
export type Permission = Schemas['Permission'];
export type ErrorResponse = Schemas['ErrorResponse'];
export type FieldError = Schemas['FieldError'];

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
