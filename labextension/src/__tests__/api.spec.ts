import { ServerConnection } from '@jupyterlab/services';

import {
  AccelAPIError,
  AccelNetworkError,
  fetchInfo,
  requestAPI
} from '../api';
import { notConfiguredInfo } from './fixtures';

/** Server settings whose fetch answers with `respond` and records the URLs asked. */
function settingsAnswering(
  respond: (url: string) => Response | Promise<Response>
): { settings: ServerConnection.ISettings; urls: string[] } {
  const urls: string[] = [];
  const settings = ServerConnection.makeSettings({
    baseUrl: 'http://127.0.0.1:9999/user/alice/',
    wsUrl: 'ws://127.0.0.1:9999/user/alice/',
    fetch: async (input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      urls.push(url);
      return respond(url);
    }
  });
  return { settings, urls };
}

/** The error a promise rejects with; fails the test if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' }
  });
}

describe('requestAPI', () => {
  it('asks {baseUrl}accel/v1/info and returns the parsed body', async () => {
    const info = notConfiguredInfo('1.0.0');
    const { settings, urls } = settingsAnswering(() => json(200, info));
    await expect(fetchInfo(settings)).resolves.toEqual(info);
    expect(urls).toHaveLength(1);
    expect(new URL(urls[0]).pathname).toBe('/user/alice/accel/v1/info');
  });

  it("raises the server's message, status and field on an error answer", async () => {
    const { settings } = settingsAnswering(() =>
      json(400, {
        message: 'gpus must be at least 1',
        field: 'workers.0.gpus',
        errors: []
      })
    );
    const error = (await rejectionOf(
      requestAPI('jobs', settings, { method: 'POST' })
    )) as AccelAPIError;
    expect(error).toBeInstanceOf(AccelAPIError);
    expect(error.status).toBe(400);
    expect(error.message).toBe('gpus must be at least 1');
    expect(error.field).toBe('workers.0.gpus');
  });

  it('explains a bodiless 404 as a missing server extension', async () => {
    const { settings } = settingsAnswering(
      () => new Response('', { status: 404 })
    );
    const error = (await rejectionOf(
      requestAPI('info', settings)
    )) as AccelAPIError;
    expect(error).toBeInstanceOf(AccelAPIError);
    expect(error.status).toBe(404);
    expect(error.message).toMatch(
      /server extension is not installed or not enabled/
    );
  });

  it('names the status of a non-JSON error answer', async () => {
    const { settings } = settingsAnswering(
      () => new Response('<html>bad gateway</html>', { status: 502 })
    );
    const error = await rejectionOf(requestAPI('info', settings));
    expect(error.message).toBe(
      'The server answered 502 without an explanation.'
    );
  });

  it('wraps a failed connection in AccelNetworkError', async () => {
    const { settings } = settingsAnswering(() => {
      throw new TypeError('Failed to fetch');
    });
    const error = await rejectionOf(requestAPI('info', settings));
    expect(error).toBeInstanceOf(AccelNetworkError);
    expect(error.message).toContain('Failed to fetch');
  });
});
