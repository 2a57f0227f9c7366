/**
 * The sidebar against the real devcluster (JA_UI_CLUSTER=1, identity
 * queue-viewer, namespace team-a): seeded GPUs, queues, a job launched,
 * watched to Succeeded, its detail and logs opened, then deleted.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import { createOnRealNode } from './real-node';

const PANEL_ID = 'jupyter-accel-panel';
const SCREENSHOTS =
  process.env.ACCEL_SCREENSHOT_DIR ||
  path.resolve(__dirname, '..', '..', '..', 'test-output', 'screenshots');

test.use({ viewport: { width: 1400, height: 1000 } });
test.describe.configure({ mode: 'serial' });

async function openPanel(page: IJupyterLabPageFixture): Promise<Locator> {
  await page.sidebar.openTab(PANEL_ID);
  const panel = page.locator(`#${PANEL_ID}`);
  await expect(
    panel.getByRole('status', { name: 'Connection state' })
  ).toHaveAttribute('data-state', 'connected');
  // The sidebar is narrow by default; widen it for readable screenshots.
  await page.sidebar.setWidth(400, 'left');
  return panel;
}

function section(panel: Locator, name: string): Locator {
  return panel.locator(`section.jp-accel-collapsible[aria-label="${name}"]`);
}

async function shoot(
  page: IJupyterLabPageFixture,
  name: string,
  target?: Locator
): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    if (theme === 'dark') {
      await page.theme.setDarkTheme();
    } else {
      await page.theme.setLightTheme();
    }
    const file = path.join(SCREENSHOTS, `${name}-${theme}.png`);
    if (target) {
      await target.screenshot({ path: file });
    } else {
      await page.screenshot({ path: file });
    }
  }
  await page.theme.setLightTheme();
}

test('shows the seeded GPUs, profiles and queue quota', async ({ page }) => {
  const panel = await openPanel(page);
  const accel = section(panel, 'Accelerators');
  const h100 = accel.locator('[data-model="NVIDIA-H100-80GB-HBM3"]');
  await expect(h100).toContainText('NVIDIA-H100-80GB-HBM3');
  await expect(h100).toContainText('80 GiB');
  await expect(h100).toContainText('2 nodes');
  await expect(h100).toContainText('16');
  await h100.getByRole('button', { expanded: false }).click();
  const nodes = h100.getByRole('list', { name: /Nodes with/ });
  await expect(nodes).toContainText('gpu-h100-0');
  await expect(nodes).toContainText('gpu-h100-1');
  await expect(accel.getByLabel('Hardware profiles')).toContainText(
    'NVIDIA H100 (queued)'
  );
  await shoot(page, 'accelerators');

  const queues = section(panel, 'Queues');
  const def = queues.locator('[data-queue="default"]');
  await expect(def).toContainText('team-a-cq');
  await expect(def).toContainText('default');
  const gpuBar = def
    .locator('[data-flavor="nvidia-h100-80gb"]')
    .getByRole('img', { name: /nvidia\.com\/gpu: .* of 8 nominal/ });
  await expect(gpuBar).toBeVisible();
  await accel.getByRole('button', { name: 'Accelerators' }).click();
  await shoot(page, 'queues');
});

test('launches a job, watches it succeed, opens its logs and deletes it', async ({
  page
}) => {
  test.setTimeout(180_000);
  const panel = await openPanel(page);
  const jobsUrl = '/accel/v1/jobs?scope=namespace';
  const countJobs = async (): Promise<number> =>
    (await (await page.request.get(jobsUrl)).json()).jobs.length;
  const before = await countJobs();

  // The palette command opens the launch section and focuses the form.
  await page.keyboard.press('Control+Shift+C');
  const palette = page.locator('#command-palette');
  await palette
    .locator('.lm-CommandPalette-input')
    .fill('Accelerators: Launch job');
  await palette
    .locator('.lm-CommandPalette-item', { hasText: 'Accelerators: Launch job' })
    .click();
  const form = panel.getByRole('form', { name: 'Launch a job' });
  await expect(form).toBeVisible();
  await section(panel, 'Accelerators')
    .getByRole('button', { name: 'Accelerators' })
    .click();
  await section(panel, 'Queues')
    .getByRole('button', { name: 'Queues' })
    .click();

  // The fit check needs only the job's shape, so it answers before a command is written; launching without
  // one is the server's 400, shown under its input.
  const fit = form.getByRole('status', { name: 'Fit check' });
  await expect(fit).toHaveAttribute('data-verdict', 'fits_now');
  await form.getByRole('button', { name: 'Launch' }).click();
  await expect(form.locator('[data-field="command"]')).toContainText('command');
  await form
    .getByRole('textbox', { name: 'Command' })
    .fill('echo hello from the sidebar');
  const count = form.getByLabel('Count per worker');
  await count.fill('0');
  await expect(form.locator('[data-field="acceleratorCount"]')).toContainText(
    'at least 1'
  );
  await expect(count).toHaveAttribute('aria-invalid', 'true');
  await count.fill('64');
  await expect(fit).toHaveAttribute('data-verdict', 'never_fits');
  await count.fill('1');
  await expect(fit).toHaveAttribute('data-verdict', 'fits_now');
  await expect(fit).toContainText('Fits now');
  await shoot(page, 'launch');

  // A double click creates one job (client_request_id).
  await form.getByRole('button', { name: 'Launch' }).dblclick();
  const launched = form.getByRole('status').filter({ hasText: 'Launched' });
  await expect(launched).toBeVisible();
  const name = ((await launched.textContent()) ?? '')
    .replace('Launched', '')
    .replace('.', '')
    .trim();
  expect(name).not.toBe('');
  await expect.poll(countJobs).toBe(before + 1);

  const row = section(panel, 'My jobs').locator(`[data-job="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute(
    'data-status',
    /Queued|Admitted|Starting|Running|Succeeded/
  );
  await panel.getByRole('button', { name: 'Launch', expanded: true }).click();
  await shoot(page, 'jobs');
  // Live updates (the push stream) bring it to Succeeded, with a notification.
  await expect(row).toHaveAttribute('data-status', 'Succeeded', {
    timeout: 90_000
  });
  await expect(row.locator('.jp-accel-status-badge')).toHaveClass(
    /jp-accel-tone-ok/
  );
  await expect(
    page.locator('.Toastify__toast', { hasText: `${name} finished` })
  ).toBeVisible({ timeout: 15_000 });

  // Job detail: status, pods, timeline, logs.
  await row.getByRole('button', { name: 'Details' }).click();
  const tab = page.locator(`#jp-accel-job-pytorch-${name}`);
  await expect(tab).toBeVisible();
  await expect(tab.getByRole('status', { name: 'Job status' })).toHaveAttribute(
    'data-status',
    'Succeeded'
  );
  await expect(tab.getByRole('region', { name: 'Pods' })).toContainText(
    `${name}-master-0`
  );
  await expect(tab.getByRole('region', { name: 'Timeline' })).toContainText(
    'Admitted'
  );
  const logs = tab.getByRole('region', { name: 'Logs' });
  // A finished job's log is read once (no follow); then only its last 2 lines.
  const output = logs.getByLabel('Log output');
  const logState = logs.getByLabel('Log state');
  await expect(logState).toHaveAttribute('data-state', 'ended', {
    timeout: 30_000
  });
  await expect(
    logs.getByRole('checkbox', { name: 'Follow' })
  ).not.toBeChecked();
  await expect(output).not.toBeEmpty();
  const tail = logs.getByRole('spinbutton', { name: 'Tail' });
  await tail.fill('2');
  await tail.press('Enter');
  await expect(logState).toHaveAttribute('data-state', 'ended');
  await expect
    .poll(
      async () => ((await output.textContent()) ?? '').trim().split('\n').length
    )
    .toBeLessThanOrEqual(2);
  await expect(output).not.toBeEmpty();

  // Delete, with confirmation.
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog).toContainText(`Delete ${name}?`);
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);
  await expect
    .poll(
      async () =>
        (await page.request.get(`/accel/v1/jobs/pytorch/${name}`)).status(),
      {
        timeout: 30_000
      }
    )
    .toBe(404);
});

test("a job on the real node: its own output in its detail (the README's screenshot)", async ({
  page
}) => {
  // the job detail of the README runs on devcluster's real node: the log it shows is the job's own output,
  // never a simulated node's fixture
  test.skip(
    !process.env.JA_NODE_IMAGE,
    'devcluster runs no real node (it needs root)'
  );
  test.setTimeout(240_000);
  const name = await createOnRealNode(page.request, '', 'real', {
    kind: 'pytorch',
    workers: 1,
    cpu: '500m',
    memory: '1Gi',
    command: [
      'sh',
      '-c',
      'for step in 1 2 3; do echo "hello from $(hostname), step $step of 3"; sleep 1; done'
    ]
  });
  try {
    const panel = await openPanel(page);
    const row = section(panel, 'My jobs').locator(`[data-job="${name}"]`);
    await expect(row).toHaveAttribute('data-status', 'Succeeded', {
      timeout: 180_000
    });
    await row.getByRole('button', { name: 'Details' }).click();
    const tab = page.locator(`#jp-accel-job-pytorch-${name}`);
    const logs = tab.getByRole('region', { name: 'Logs' });
    await expect(logs.getByLabel('Log state')).toHaveAttribute(
      'data-state',
      'ended',
      { timeout: 30_000 }
    );
    const output = logs.getByLabel('Log output');
    await expect(output).toContainText(
      `hello from ${name}-master-0, step 3 of 3`
    );
    await expect(output).not.toContainText('fixture');
    await expect(tab.getByRole('region', { name: 'Pods' })).toContainText(
      'devcluster-node'
    );
    // tall enough for the timeline and the log together; no toast over the log
    await page.setViewportSize({ width: 1400, height: 1500 });
    for (const close of await page
      .locator('.Toastify__toast .Toastify__close-button')
      .all()) {
      await close.click();
    }
    await output.scrollIntoViewIfNeeded();
    await shoot(page, 'job-detail');
  } finally {
    await page.request.delete(`/accel/v1/jobs/pytorch/${name}`);
  }
});

test('shows "reconnecting" while the push stream is refused, and goes quiet when hidden', async ({
  page
}) => {
  const panel = await openPanel(page);
  const h100 = section(panel, 'Accelerators').locator(
    '[data-model="NVIDIA-H100-80GB-HBM3"]'
  );
  await expect(h100).toBeVisible();

  // Hide the panel: the stream closes and nothing is asked of the server.
  await page.sidebar.close('left');
  await page.waitForTimeout(500);
  const asked: string[] = [];
  const onRequest = (r: { url(): string }): void => {
    if (r.url().includes('/accel/v1/')) {
      asked.push(r.url());
    }
  };
  page.on('request', onRequest);
  await page.waitForTimeout(4000);
  page.off('request', onRequest);
  expect(asked).toEqual([]);

  // Shown again while the server refuses the stream: a visible reconnecting state.
  await page.route(/\/accel\/v1\/stream/, route =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ message: 'stream refused by the test' })
    })
  );
  await page.sidebar.openTab(PANEL_ID);
  const live = panel.getByRole('status', { name: 'Live updates' });
  await expect(live).toHaveAttribute('data-state', 'reconnecting');
  await expect(live).toContainText('stream refused by the test');
  await shoot(page, 'reconnecting', panel);
  await page.unroute(/\/accel\/v1\/stream/);
  // The next attempt (backoff of 1, 2, 4 s) gets through and the banner goes.
  await expect(live).toHaveCount(0, { timeout: 15_000 });
  await expect(h100).toBeVisible();
});

test('queues a job too big for the quota, suspends and resumes it', async ({
  page
}) => {
  test.setTimeout(120_000);
  const panel = await openPanel(page);
  await panel.getByRole('button', { name: 'Launch', expanded: false }).click();
  const form = panel.getByRole('form', { name: 'Launch a job' });
  await form.getByRole('textbox', { name: 'Command' }).fill('sleep 1');
  await form.getByLabel('Workers').fill('2');
  await form.getByLabel('Count per worker').fill('8');
  // 16 GPUs against a ClusterQueue of 8 (+4 borrowable): the check says so.
  const fit = form.getByRole('status', { name: 'Fit check' });
  await expect(fit).toHaveAttribute('data-verdict', 'never_fits');
  await form.getByRole('button', { name: 'Launch' }).click();
  const launched = form.getByRole('status').filter({ hasText: 'Launched' });
  await expect(launched).toBeVisible();
  const name = ((await launched.textContent()) ?? '')
    .replace('Launched', '')
    .replace('.', '')
    .trim();
  await panel.getByRole('button', { name: 'Launch', expanded: true }).click();
  await section(panel, 'Accelerators')
    .getByRole('button', { name: 'Accelerators' })
    .click();

  const jobs = section(panel, 'My jobs');
  const row = jobs.locator(`[data-job="${name}"]`);
  await expect(row).toHaveAttribute('data-status', 'Queued');
  // more than the queue can ever give: said so, Kueue's own words beside it, and no place in line
  await expect(row).toContainText('Can never be admitted', { timeout: 30_000 });
  await expect(row).toContainText('Can never start');
  await expect(row).toContainText('insufficient quota');
  await expect(row).not.toContainText('in line');
  await shoot(page, 'jobs-queued');

  // one sentence per state: the server's own words and label, in the row and in the detail tab
  const served = (
    (await (await page.request.get('/accel/v1/jobs?scope=namespace')).json())
      .jobs as { name: string; display: { sentence: string; label: string } }[]
  ).find(j => j.name === name)!;
  expect(served.display.sentence).toContain('Can never be admitted');
  await expect(row.locator('.jp-accel-job-reason')).toContainText(
    served.display.sentence
  );
  await expect(row.locator('.jp-accel-status-badge')).toHaveText(
    served.display.label
  );
  await row.getByRole('button', { name: 'Details' }).click();
  const tab = page.locator(`#jp-accel-job-pytorch-${name}`);
  await expect(tab.getByRole('status', { name: 'Job status' })).toContainText(
    served.display.sentence
  );

  await row.getByRole('button', { name: 'Suspend' }).click();
  await expect(row).toHaveAttribute('data-status', 'Suspended', {
    timeout: 30_000
  });
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(row).toHaveAttribute('data-status', 'Queued', {
    timeout: 30_000
  });

  // The whole namespace lists it too.
  await jobs.getByRole('radio', { name: 'Whole namespace' }).check();
  await expect(row).toBeVisible();

  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await page
    .locator('.jp-Dialog')
    .getByRole('button', { name: 'Delete' })
    .click();
  await expect(row).toHaveCount(0);
});

test('opens the real Ray dashboard of a cluster on the real node from its detail', async ({
  page
}) => {
  // devcluster's real node runs pods (as root, where the node can run); it prints its image and queue.
  test.skip(
    !process.env.JA_NODE_IMAGE,
    'devcluster runs no real node (it needs root)'
  );
  test.setTimeout(300_000);
  const name = await createOnRealNode(page.request, '', 'dash', {
    kind: 'ray-cluster',
    workers: 0,
    cpu: '500m',
    memory: '2Gi'
  });
  try {
    const panel = await openPanel(page);
    const row = section(panel, 'My jobs').locator(`[data-job="${name}"]`);
    await expect(row).toHaveAttribute('data-status', 'Running', {
      timeout: 240_000
    });
    await row.getByRole('button', { name: 'Details' }).click();
    const tab = page.locator(`#jp-accel-job-ray-cluster-${name}`);
    const link = tab.getByRole('link', { name: 'Open the Ray dashboard' });
    await expect(link).toBeVisible();
    // The head's dashboard server starts a moment after the pod is ready.
    await expect
      .poll(
        async () =>
          (
            await page.request.get(
              `/accel/v1/jobs/ray-cluster/${name}/dashboard/`
            )
          ).status(),
        { timeout: 90_000 }
      )
      .toBe(200);
    const [dashboard] = await Promise.all([
      page.context().waitForEvent('page'),
      link.click()
    ]);
    const failed: string[] = [];
    dashboard.on('requestfailed', r =>
      failed.push(`${r.url()}: ${r.failure()?.errorText}`)
    );
    dashboard.on('console', m => {
      if (m.type() === 'error') {
        failed.push(`console: ${m.text()}`);
      }
    });
    dashboard.on('pageerror', e => failed.push(`page error: ${e.message}`));
    await dashboard.waitForLoadState();
    // Ray's own single-page app, with its scripts, through the server's proxy and the API server's.
    await expect(dashboard).toHaveTitle(/Ray Dashboard/);
    await expect(
      dashboard.locator('#root'),
      `the dashboard app did not render; failed: ${failed.join(' | ')}`
    ).not.toBeEmpty({ timeout: 60_000 });
    // rendered by Ray's app from Ray's own API answers (its overview names the cluster's nodes)
    await expect(dashboard).toHaveTitle(/Overview \| Ray Dashboard/, {
      timeout: 60_000
    });
    expect(failed.filter(f => f.includes('Content Security Policy'))).toEqual(
      []
    );
    await dashboard.screenshot({
      path: path.join(SCREENSHOTS, 'ray-dashboard.png')
    });
    await dashboard.close();
  } finally {
    await page.request.delete(`/accel/v1/jobs/ray-cluster/${name}`);
  }
});

test("charts a busy job's accelerator use from the metrics API", async ({
  page
}) => {
  // devcluster's Prometheus scrapes the real node's device exporter: DCGM's names, each container's CPU use
  test.skip(
    !process.env.JA_NODE_IMAGE || !process.env.JUPYTER_ACCEL_METRICS_URL,
    'devcluster runs no real node (it needs root) or no Prometheus'
  );
  test.setTimeout(300_000);
  const name = await createOnRealNode(page.request, '', 'busy', {
    kind: 'pytorch',
    workers: 1,
    cpu: '1',
    memory: '1Gi',
    accelerators: { resource: 'nvidia.com/gpu', count: 1 },
    script: {
      text: 'import time\nend = time.time() + 240\nwhile time.time() < end:\n    pass\n',
      interpreter: 'python'
    }
  });
  try {
    const panel = await openPanel(page);
    const row = section(panel, 'My jobs').locator(`[data-job="${name}"]`);
    await expect(row).toHaveAttribute('data-status', 'Running', {
      timeout: 180_000
    });
    // the row's sparkline: asked again every 30 s while the panel shows
    const use = row.locator('.jp-accel-use');
    await expect
      .poll(async () => Number(await use.getAttribute('data-percent')), {
        timeout: 120_000
      })
      .toBeGreaterThan(50);
    await expect(use).toContainText('of 1 device (simulated: CPU use)');
    await expect(use.locator('canvas')).toHaveCount(1);
    await row.getByRole('button', { name: 'Details' }).click();
    const tab = page.locator(`#jp-accel-job-pytorch-${name}`);
    const chart = tab.getByRole('region', { name: 'Utilization' });
    await expect(chart.getByLabel('Metrics source')).toContainText(
      'NVIDIA DCGM exporter'
    );
    await expect(chart.getByLabel('Simulated devices')).toBeVisible();
    await expect(
      chart.getByRole('img', { name: `Utilization per device of ${name}` })
    ).toBeVisible();
    await expect(chart.locator('canvas')).toHaveCount(2); // utilization and memory
    await shoot(page, 'utilization', tab);
  } finally {
    await page.request.delete(`/accel/v1/jobs/pytorch/${name}`);
  }
});

test('shows the progress a TrainJob reports as a bar with its numbers', async ({
  page
}) => {
  test.skip(
    !process.env.JA_NODE_IMAGE,
    'devcluster runs no real node (it needs root)'
  );
  test.setTimeout(300_000);
  // the example's script POSTs 50 % after one step and 100 % after the second to Trainer's status server
  const script = fs.readFileSync(
    path.resolve(
      __dirname,
      '..',
      '..',
      '..',
      'examples',
      'trainjob-progress',
      'train.py'
    ),
    'utf8'
  );
  const name = await createOnRealNode(page.request, '', 'prog', {
    kind: 'trainjob',
    workers: 2,
    cpu: '500m',
    memory: '1Gi',
    script: { text: script, interpreter: 'python' }
  });
  try {
    const panel = await openPanel(page);
    const row = section(panel, 'My jobs').locator(`[data-job="${name}"]`);
    const bar = row.getByRole('progressbar', { name: `Progress of ${name}` });
    await expect(bar).toHaveAttribute('aria-valuenow', '50', {
      timeout: 240_000
    });
    await expect(row.locator('.jp-accel-progress-text')).toContainText(
      '50 % · about 1m left · loss 0.5'
    );
    await shoot(page, 'trainjob-progress', row);
    await expect(bar).toHaveAttribute('aria-valuenow', '100', {
      timeout: 120_000
    });
    await expect(row).toHaveAttribute('data-status', 'Succeeded', {
      timeout: 120_000
    });
  } finally {
    await page.request.delete(`/accel/v1/jobs/trainjob/${name}`);
  }
});

test('shows this workbench and previews a change of its hardware profile', async ({
  page
}) => {
  // the cluster server says it runs in devcluster's Notebook notebook-tests (NB_PREFIX, playwright.config.js)
  const panel = await openPanel(page);
  const wb = section(panel, 'This workbench');
  await wb.getByRole('button', { name: 'This workbench' }).click();
  await expect(wb.locator('.jp-accel-workbench-message')).toContainText(
    'Workbench notebook-tests has no accelerator, hardware profile CPU only (small).'
  );
  await expect(wb).toContainText('Queue default (Kueue-managed project)');
  await wb
    .getByLabel('Hardware profile')
    .selectOption({ label: 'NVIDIA H100 (queued)' });
  await wb.getByRole('button', { name: 'Check' }).click();
  const preview = wb.locator('.jp-accel-workbench-preview');
  // the fit check of the workbench's pod, and what the change costs; nothing is changed before the user says so
  await expect(preview).toContainText('Save your notebooks first.');
  await expect(
    preview.getByRole('button', { name: 'Change profile' })
  ).toBeVisible();
  await shoot(page, 'workbench', wb);
  const after = await (await page.request.get('/accel/v1/workbench')).json();
  expect(after.hardware_profile).toBe('cpu-small');
});
