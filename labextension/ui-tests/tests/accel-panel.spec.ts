import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

const PANEL_ID = 'jupyter-accel-panel';
const SCREENSHOTS =
  process.env.ACCEL_SCREENSHOT_DIR ||
  path.resolve(__dirname, '..', '..', '..', 'test-output', 'screenshots');
const FRONTEND_VERSION: string = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')
).version;

/** Open the panel through its sidebar tab and return the panel region. */
async function openFromSidebar(page: IJupyterLabPageFixture): Promise<Locator> {
  const tab = page.sidebar.getTabLocator(PANEL_ID);
  await expect(tab).toHaveAttribute('title', 'Accelerators');
  await page.sidebar.openTab(PANEL_ID);
  const panel = page.getByRole('region', { name: 'Accelerators' });
  await expect(panel).toBeVisible();
  await expect(
    panel.getByRole('heading', { name: 'Accelerators' })
  ).toBeVisible();
  return panel;
}

async function expectNotConfigured(panel: Locator): Promise<void> {
  const status = panel.getByRole('status', { name: 'Connection state' });
  await expect(status).toHaveAttribute('data-state', 'not_configured');
  await expect(status).toContainText('Not connected');
  await expect(status).toContainText('not configured');
  // The server's own sentence is shown as is.
  await expect(status).toContainText('No Kubernetes configuration found');
  const apis = panel.getByLabel('Cluster APIs');
  await expect(apis).toContainText('Kueue');
  await expect(apis).toContainText('unknown');
}

test.describe('Accelerators panel', () => {
  test('shows "not connected" without a kubeconfig (light theme)', async ({
    page
  }) => {
    const panel = await openFromSidebar(page);
    await expectNotConfigured(panel);
    await expect(panel.getByLabel('Connection details')).toContainText(
      FRONTEND_VERSION
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, 'panel-light.png') });
  });

  test('ships its settings schema', async ({ page }) => {
    const response = await page.request.get(
      '/lab/api/settings/jupyter-accel:plugin'
    );
    expect(response.ok()).toBe(true);
    const { schema } = await response.json();
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual([
      'maxBackoffInterval',
      'refreshInterval',
      'showPermissions'
    ]);
    const interval = schema.properties.refreshInterval;
    expect(interval.default).toBeGreaterThanOrEqual(interval.minimum);
  });

  test('opens from the command palette and reads well in the dark theme', async ({
    page
  }) => {
    await page.theme.setDarkTheme();
    await page.keyboard.press('Control+Shift+C');
    const palette = page.locator('#command-palette');
    await expect(palette).toBeVisible();
    await palette
      .locator('.lm-CommandPalette-input')
      .fill('Accelerators: Open panel');
    await palette
      .locator('.lm-CommandPalette-item', {
        hasText: 'Accelerators: Open panel'
      })
      .click();
    const panel = page.getByRole('region', { name: 'Accelerators' });
    await expect(panel).toBeVisible();
    await expectNotConfigured(panel);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'panel-dark.png') });
    await page.theme.setLightTheme();
  });
});

test.describe('Version mismatch', () => {
  test.use({ autoGoto: false });

  test('refuses to run when the server reports another version', async ({
    page
  }) => {
    const serverVersion = '999.0.0';
    let answered = 0;
    await page.route(/\/accel\/v1\/info(\?|$)/, async route => {
      // The real answer, with only the version changed.
      const response = await route.fetch();
      const body = await response.json();
      answered++;
      await route.fulfill({
        response,
        json: { ...body, version: serverVersion }
      });
    });
    await page.goto();
    const panel = await openFromSidebar(page);

    const alert = panel.getByRole('alert', { name: 'Version mismatch' });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText(`version ${FRONTEND_VERSION}`);
    await expect(alert).toContainText(`version ${serverVersion}`);
    await expect(alert).toContainText('Install the same version');
    // Refusing means: no connection state, no capabilities.
    await expect(
      panel.getByRole('status', { name: 'Connection state' })
    ).toHaveCount(0);
    await expect(panel.getByLabel('Capabilities')).toHaveCount(0);
    expect(answered).toBeGreaterThan(0);

    // And it stops asking: a refresh does not reach the server again.
    const before = answered;
    await panel.getByRole('button', { name: /refresh/i }).click();
    await page.waitForTimeout(500);
    expect(answered).toBe(before);
    await page.screenshot({
      path: path.join(SCREENSHOTS, 'panel-mismatch.png')
    });
  });
});
