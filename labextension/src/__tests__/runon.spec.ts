import { ServerConnection } from '@jupyterlab/services';

import type { JobView } from '../api';
import { sendRayJob } from '../runon';

/** Server settings recording every request (path and JSON body) and answering as the server does. */
function recordingServer(): {
  settings: ServerConnection.ISettings;
  asked: { path: string; body: unknown }[];
} {
  const asked: { path: string; body: unknown }[] = [];
  const settings = ServerConnection.makeSettings({
    baseUrl: 'http://127.0.0.1:9999/',
    wsUrl: 'ws://127.0.0.1:9999/',
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : null;
      const url = request ? request.url : String(input);
      const text = request ? await request.text() : String(init?.body ?? '');
      const path = new URL(url).pathname;
      asked.push({ path, body: text ? JSON.parse(text) : null });
      const answer = path.endsWith('/ray-package')
        ? { uri: 'gcs://_ray_pkg_abc.zip', files: 2, size_bytes: 300 }
        : { submission_id: 'raysubmit_1' };
      return new Response(JSON.stringify(answer), {
        status: 201,
        headers: { 'Content-Type': 'application/json' }
      });
    }
  });
  return { settings, asked };
}

const cluster = { kind: 'ray-cluster', name: 'rc-1' } as JobView;

describe('Run on… a Ray cluster', () => {
  it('uploads the working dir as a package, then names it in the Ray job', async () => {
    const { settings, asked } = recordingServer();
    await expect(
      sendRayJob(settings, cluster, 'python train.py', 'projects/train')
    ).resolves.toBe('raysubmit_1');
    expect(asked).toEqual([
      {
        path: '/accel/v1/jobs/ray-cluster/rc-1/ray-package',
        body: { workdir: 'projects/train' }
      },
      {
        path: '/accel/v1/jobs/ray-cluster/rc-1/dashboard/api/jobs/',
        body: {
          entrypoint: 'python train.py',
          runtime_env: { working_dir: 'gcs://_ray_pkg_abc.zip' }
        }
      }
    ]);
  });

  it('sends a command alone without a package', async () => {
    const { settings, asked } = recordingServer();
    await sendRayJob(settings, cluster, 'python -c "print(1)"', '');
    expect(asked.map(a => a.path)).toEqual([
      '/accel/v1/jobs/ray-cluster/rc-1/dashboard/api/jobs/'
    ]);
    expect(asked[0].body).toEqual({ entrypoint: 'python -c "print(1)"' });
  });
});

describe("a Ray job's output in its cluster's detail", () => {
  it('reads the driver log until Ray says the job ended', async () => {
    const { ReactWidget } = await import('@jupyterlab/ui-components');
    const { Widget } = await import('@lumino/widgets');
    const React = await import('react');
    const { RayJobOutput } = await import('../components/logs');
    let reads = 0;
    const settings = ServerConnection.makeSettings({
      baseUrl: 'http://127.0.0.1:9999/',
      wsUrl: 'ws://127.0.0.1:9999/',
      fetch: async (input: RequestInfo | URL) => {
        const url = new URL(
          input instanceof Request ? input.url : String(input)
        );
        const done = reads >= 2;
        const body = url.pathname.endsWith('/logs')
          ? { logs: done ? 'step 1\nstep 2\n' : 'step 1\n' }
          : { status: done ? 'SUCCEEDED' : 'RUNNING' };
        if (!url.pathname.endsWith('/logs')) {
          reads++;
        }
        expect(url.pathname).toMatch(
          /^\/accel\/v1\/jobs\/ray-cluster\/rc-1\/dashboard\/api\/jobs\/raysubmit_1(\/logs)?$/
        );
        return new Response(JSON.stringify(body), {
          status: 200,
          headers: { 'Content-Type': 'application/json' }
        });
      }
    });
    const widget = ReactWidget.create(
      React.createElement(RayJobOutput, {
        settings,
        kind: 'ray-cluster',
        name: 'rc-1',
        submission: 'raysubmit_1'
      })
    );
    Widget.attach(widget, document.body);
    const deadline = Date.now() + 10000;
    while (!widget.node.textContent?.includes('SUCCEEDED')) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise(r => setTimeout(r, 50));
    }
    expect(widget.node.querySelector('pre')?.textContent).toBe(
      'step 1\nstep 2\n'
    );
    expect(reads).toBe(3); // read again while it ran, not after it ended
    widget.dispose();
  });
});
