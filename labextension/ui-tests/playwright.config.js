/**
 * Galata/Playwright configuration: Debian's Chromium (never a downloaded
 * browser) against `jupyter lab` from the repository's .venv.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const repoRoot = path.resolve(__dirname, '..', '..');
const venv = process.env.JUPYTER_ACCEL_VENV || path.join(repoRoot, '.venv');
const port = process.env.JUPYTER_ACCEL_UI_PORT || '18891';
const baseURL = `http://127.0.0.1:${port}`;
// An empty HOME: no ~/.kube/config can leak in, so the panel must show "not configured".
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'accel-ui-home-'));

module.exports = {
  ...baseConfig,
  testDir: './tests',
  outputDir: './test-results',
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: 'playwright-report' }]
  ],
  workers: 1,
  retries: 0,
  use: {
    ...baseConfig.use,
    baseURL,
    // Video needs Playwright's own ffmpeg download; traces and screenshots do not.
    video: 'off',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic'
      ]
    }
  },
  webServer: {
    command: `${path.join(venv, 'bin', 'jupyter')} lab --config jupyter_server_test_config.py`,
    cwd: __dirname,
    url: `${baseURL}/lab`,
    timeout: 120 * 1000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      HOME: home,
      KUBECONFIG: '',
      KUBERNETES_SERVICE_HOST: '',
      JUPYTER_ACCEL_KUBECONFIG: '',
      JUPYTER_ACCEL_UI_PORT: port
    }
  }
};
