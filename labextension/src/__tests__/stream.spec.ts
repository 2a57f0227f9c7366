import { ServerConnection } from '@jupyterlab/services';

import { ChangeStream, IChange, StreamState } from '../sse';

/** A Response whose body yields the given chunks, then stays open. */
function streaming(chunks: string[]): unknown {
  const encoder = new TextEncoder();
  const queue = chunks.map(c => encoder.encode(c));
  return {
    ok: true,
    status: 200,
    body: {
      getReader: () => ({
        read: () =>
          queue.length
            ? Promise.resolve({ done: false, value: queue.shift() })
            : new Promise(() => undefined), // the server keeps it open
        cancel: () => Promise.resolve()
      })
    }
  };
}

async function until(check: () => boolean, timeout = 2000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeout) {
      throw new Error('timed out');
    }
    await new Promise(r => setTimeout(r, 5));
  }
}

describe('ChangeStream', () => {
  it('reconnects after a failure and reports the changes it reads', async () => {
    const urls: string[] = [];
    let calls = 0;
    const settings = ServerConnection.makeSettings({
      baseUrl: 'http://127.0.0.1:1/',
      fetch: (async (request: Request) => {
        urls.push(request.url);
        calls++;
        if (calls === 1) {
          throw new TypeError('connection refused');
        }
        return streaming([
          'event: change\ndata: {"revision": 1, "topics": ["*"]}\n',
          '\n: keep-alive\n\nevent: change\ndata: {"revision": 2, "topics": ["jobs"]}\n\n'
        ]);
      }) as unknown as typeof fetch
    });
    const stream = new ChangeStream(settings, 10);
    const states: StreamState[] = [];
    const changes: IChange[] = [];
    stream.stateChanged.connect((_, s) => states.push(s));
    stream.changed.connect((_, c) => changes.push(c));
    stream.start();
    await until(() => changes.length === 2);
    expect(urls[0]).toContain('/accel/v1/stream');
    expect(states).toEqual(['connecting', 'reconnecting', 'open']);
    expect(stream.lastError).toContain('connection refused');
    expect(changes.map(c => c.topics)).toEqual([['*'], ['jobs']]);
    stream.stop();
    expect(stream.state).toBe('closed');
    await new Promise(r => setTimeout(r, 30));
    expect(calls).toBe(2); // stopped: no further attempt
    stream.dispose();
  });
});
