/**
 * One test per JupyterLab of the compatibility matrix: the prebuilt
 * extension from the wheel loads, its sidebar opens and shows the
 * connected state against the devcluster, and no shared module of ours is
 * refused or warned about by JupyterLab's module federation.
 */
import { expect, test } from '@playwright/test';

const PANEL_ID = 'jupyter-accel-panel';

test('the sidebar loads and connects', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', msg => {
    const text = msg.text();
    if (
      /Unsatisfied version|jupyter-accel/i.test(text) &&
      (msg.type() === 'warning' || msg.type() === 'error')
    ) {
      problems.push(`${msg.type()}: ${text}`);
    }
  });
  page.on('pageerror', err => problems.push(`pageerror: ${err.message}`));

  await page.goto('/lab');
  const tab = page.locator(`.jp-SideBar .lm-TabBar-tab[data-id="${PANEL_ID}"]`);
  await expect(tab).toBeVisible({ timeout: 60 * 1000 });
  await tab.click();
  const panel = page.locator(`#${PANEL_ID}`);
  await expect(
    panel.getByRole('status', { name: 'Connection state' })
  ).toHaveAttribute('data-state', 'connected', { timeout: 30 * 1000 });
  await expect(panel).toContainText('team-a');
  expect(problems).toEqual([]);
});
