/**
 * The real workbench (JA_WORKBENCH_URL, set by scripts/test-frontend.sh from
 * `python -m devcluster workbench`): the jupyter-accel wheel in a JupyterLab
 * 4.4.7 image, running as a StatefulSet on devcluster's real node with its own
 * ServiceAccount and the RBAC tiers of examples/workbench/rbac, served under
 * NB_PREFIX and reached from here only through the API server (kubectl
 * port-forward on loopback). Nothing in this file talks to a server on the host.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { APIRequestContext } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import { createOnRealNode } from './real-node';

const BASE = (process.env.JA_WORKBENCH_URL || '').replace(/\/$/, '');
const PANEL_ID = 'jupyter-accel-panel';
const SCREENSHOTS =
  process.env.ACCEL_SCREENSHOT_DIR ||
  path.resolve(__dirname, '..', '..', '..', 'test-output', 'screenshots');

test.use({
  baseURL: BASE,
  viewport: { width: 1400, height: 1000 },
  // galata waits for an active Launcher tab, which this JupyterLab (4.4.7, older than the galata driving it)
  // does not open under galata's mocked workspace: ready is the splash gone and our tab there
  // galata makes its per-test folder with URLs from the server's root, not under NB_PREFIX: made here instead
  tmpPath: async ({ request }, provide) => {
    const folder = 'galata-workbench-pod';
    await request.put(`${BASE}/api/contents/${folder}`, {
      data: { type: 'directory' }
    });
    await provide(folder);
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
  waitForApplication: async ({}, provide) => {
    await provide(async page => {
      await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
      await page
        .locator(`.jp-SideBar .lm-TabBar-tab[data-id="${PANEL_ID}"]`)
        .waitFor();
    });
  }
});
test.describe.configure({ mode: 'serial' });

async function cellText(
  page: IJupyterLabPageFixture,
  index: number
): Promise<string> {
  const cell = await page.notebook.getCellLocator(index);
  return (await cell!.locator('.jp-OutputArea').innerText()).trim();
}

/** A notebook of code cells, written into the pod's home through its contents API and opened in JupyterLab. */
async function openNotebook(
  page: IJupyterLabPageFixture,
  file: string,
  sources: string[]
): Promise<void> {
  const cells = sources.map(source => ({
    cell_type: 'code',
    source,
    metadata: {},
    outputs: [],
    execution_count: null
  }));
  const content = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3',
        language: 'python'
      }
    },
    cells
  };
  const put = await page.request.put(`${BASE}/api/contents/${file}`, {
    data: { type: 'notebook', format: 'json', content }
  });
  expect(put.ok(), await put.text()).toBeTruthy();
  await page.evaluate(async path => {
    const app = (
      window as unknown as {
        jupyterapp: {
          commands: { execute(id: string, args: object): Promise<unknown> };
        };
      }
    ).jupyterapp;
    await app.commands.execute('docmanager:open', {
      path,
      factory: 'Notebook'
    });
  }, file);
  await expect(page.locator('.jp-NotebookPanel .jp-Cell')).toHaveCount(
    cells.length
  );
}

/**
 * The Ray head's client-server logs (ray_client_server*.err and .out: why a
 * `ray.init` over ray:// failed), read through the product's own dashboard
 * proxy and Ray's log API, kept in test-output/ray-head-logs/<cluster> and
 * attached to the test's results; printed too when `failed`. Read on every
 * run, so the path a failure needs is exercised; never fails the test itself.
 */
async function keepHeadClientLogs(
  request: APIRequestContext,
  name: string,
  failed: boolean
): Promise<void> {
  const dashboard = `${BASE}/accel/v1/jobs/ray-cluster/${name}/dashboard`;
  const kept: [string, string][] = [];
  try {
    const nodes = await (await request.get(`${dashboard}/api/v0/nodes`)).json();
    const rows: { node_id: string; is_head_node: boolean }[] =
      nodes?.data?.result?.result ?? [];
    const head = rows.find(n => n.is_head_node);
    if (!head) {
      throw new Error(`no head in Ray's node list: ${JSON.stringify(nodes)}`);
    }
    const params = { node_id: head.node_id };
    const listing = await (
      await request.get(`${dashboard}/api/v0/logs`, {
        params: { ...params, glob: 'ray_client_server*' }
      })
    ).json();
    const files = Object.values(
      (listing?.data?.result ?? {}) as Record<string, string[]>
    ).flat();
    for (const file of files) {
      const answer = await request.get(`${dashboard}/api/v0/logs/file`, {
        params: { ...params, filename: file, lines: '500' }
      });
      kept.push([file, `HTTP ${answer.status()}\n${await answer.text()}`]);
    }
    if (!files.length) {
      kept.push([
        'ray-head-logs',
        `no ray_client_server* file: ${JSON.stringify(listing)}`
      ]);
    }
  } catch (e) {
    kept.push(['ray-head-logs', `the head's logs could not be read: ${e}`]);
  }
  const folder = path.join(SCREENSHOTS, '..', 'ray-head-logs', name);
  fs.mkdirSync(folder, { recursive: true });
  for (const [file, body] of kept) {
    fs.writeFileSync(path.join(folder, path.basename(file)), body);
    await test.info().attach(file, { body, contentType: 'text/plain' });
    if (failed) {
      console.log(`---- ${name} head: ${file}\n${body}`);
    }
  }
}

test('the panel served from the pod connects with its in-cluster identity', async ({
  page
}) => {
  expect(BASE).toMatch(
    /^http:\/\/127\.0\.0\.1:\d+\/notebook\/team-a\/workbench$/
  );
  const info = await (await page.request.get(`${BASE}/accel/v1/info`)).json();
  // the pod's own ServiceAccount token, read where every in-cluster client reads it
  expect(info.connection.identity).toBe('in-cluster');
  expect(info.connection.user).toBe('system:serviceaccount:team-a:workbench');
  expect(info.connection.namespace).toBe('team-a');

  // the tab itself, not galata's sidebar helper: this JupyterLab is 4.4.7, older than the galata driving it
  await page
    .locator(`.jp-SideBar .lm-TabBar-tab[data-id="${PANEL_ID}"]`)
    .click();
  const panel = page.locator(`#${PANEL_ID}`);
  await expect(
    panel.getByRole('status', { name: 'Connection state' })
  ).toHaveAttribute('data-state', 'connected');
  // tier b lets the workbench read nodes and ClusterQueues: the seeded H100s and the project's queue show
  await expect(
    panel.locator('[data-model="NVIDIA-H100-80GB-HBM3"]')
  ).toContainText('2 nodes');
  await expect(panel.locator('[data-queue="default"]')).toContainText(
    'team-a-cq'
  );
  // "This workbench" reads the Notebook this pod belongs to (NB_PREFIX)
  const wb = panel.locator(
    'section.jp-accel-collapsible[aria-label="This workbench"]'
  );
  await wb.getByRole('button', { name: 'This workbench' }).click();
  // readable with tier a's get on notebooks
  await expect(wb.locator('.jp-accel-workbench-message')).toContainText(
    'Workbench workbench has no accelerator'
  );
  await page.screenshot({
    path: path.join(SCREENSHOTS, 'workbench-pod-panel-light.png')
  });
});

test('a notebook in the pod kernel submits a job and lists it', async ({
  page,
  tmpPath
}) => {
  const name = `wb-pod-${Date.now() % 100000}`;
  // run in a kernel of the pod, which reads the pod's in-cluster settings
  await openNotebook(page, `${tmpPath}/jobs.ipynb`, [
    "import os\n%load_ext jupyter_accel\nprint(os.environ['KUBERNETES_SERVICE_HOST'], " +
      "open('/var/run/secrets/kubernetes.io/serviceaccount/namespace').read())",
    `%%accel_job --kind pytorch --workers 1 --image busybox --name ${name}\nprint('hello from the workbench pod')`,
    '%accel jobs',
    `%accel delete ${name}`
  ]);
  await page.notebook.runCell(0);
  expect(await cellText(page, 0)).toContain('10.89.0.1 team-a');
  await page.notebook.runCell(1);
  await expect
    .poll(() => cellText(page, 1), { timeout: 60_000 })
    .toContain(name);
  await page.notebook.runCell(2);
  expect(await cellText(page, 2)).toContain(name);
  await page.screenshot({
    path: path.join(SCREENSHOTS, 'workbench-pod-notebook-light.png')
  });
  await page.notebook.runCell(3);
  expect(await cellText(page, 3)).toContain(`Deleting pytorch ${name}`);
});

test('a kernel in the pod reaches a Ray cluster through in-cluster DNS', async ({
  page,
  tmpPath
}) => {
  expect(
    process.env.JA_NODE_IMAGE,
    'the real node prints its image (JA_NODE_IMAGE)'
  ).toBeTruthy();
  test.setTimeout(360_000);
  // created by the pod's server with the workbench's own ServiceAccount (tier a may create RayClusters)
  const name = await createOnRealNode(page.request, BASE, 'wb-ray', {
    kind: 'ray-cluster',
    workers: 0,
    cpu: '500m',
    memory: '2Gi'
  });
  try {
    await expect
      .poll(
        async () =>
          (
            await (
              await page.request.get(
                `${BASE}/accel/v1/jobs/ray-cluster/${name}`
              )
            ).json()
          ).job?.status,
        { timeout: 240_000, intervals: [2000] }
      )
      .toBe('Running');
    await openNotebook(page, `${tmpPath}/ray.ipynb`, [
      `%load_ext jupyter_accel\nconn = %accel connect ${name}\nconn`,
      // Ray's own client, at the address %accel connect gives in a pod: the head's Service by cluster DNS
      'import ray, socket\n' +
        'ray.init(conn.ray_address)\n' +
        '@ray.remote(num_cpus=0)\n' +
        'def where():\n    return socket.gethostname()\n' +
        "print('ran on', ray.get(where.remote(), timeout=60))\n" +
        'ray.shutdown()'
    ]);
    // the head's dashboard starts a moment after its pod is Ready: connect answers once it does
    await expect
      .poll(
        async () => {
          await page.notebook.runCell(0);
          return cellText(page, 0);
        },
        { timeout: 90_000, intervals: [3000] }
      )
      .toContain(`ray://${name}-head-svc.team-a.svc:10001`);
    await page.notebook.runCell(1);
    await expect
      .poll(() => cellText(page, 1), { timeout: 120_000 })
      .toMatch(new RegExp(`ran on ${name}-head`));
    await page.screenshot({
      path: path.join(SCREENSHOTS, 'workbench-pod-ray-light.png')
    });
    await keepHeadClientLogs(page.request, name, false);
  } catch (e) {
    await keepHeadClientLogs(page.request, name, true);
    throw e;
  } finally {
    await page.request.delete(`${BASE}/accel/v1/jobs/ray-cluster/${name}`);
  }
});
