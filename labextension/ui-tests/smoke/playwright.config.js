/**
 * The compatibility smoke test: one browser test against `jupyter lab` of a
 * venv that has only a JupyterLab (4.4.7 as in ODH workbench images, or the
 * newest) and the built wheel installed. scripts/test-packaging.sh runs it
 * once per venv with JUPYTER_ACCEL_SMOKE_VENV set and a devcluster up
 * (JA_UI_KUBECONFIG: the kubeconfig of the identity the server runs as).
 * Plain Playwright, not galata's fixtures: those need galata's helper
 * extension, which only the JupyterLab matching galata's npm version ships.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

const venv = process.env.JUPYTER_ACCEL_SMOKE_VENV;
const kubeconfig = process.env.JA_UI_KUBECONFIG;
if (!venv || !kubeconfig) {
  throw new Error(
    'JUPYTER_ACCEL_SMOKE_VENV and JA_UI_KUBECONFIG must be set (scripts/test-packaging.sh sets them)'
  );
}
const port = process.env.JUPYTER_ACCEL_SMOKE_PORT || '18871';
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'accel-smoke-home-'));

module.exports = {
  testDir: __dirname,
  testMatch: /smoke\.spec\.ts$/,
  outputDir: path.join(__dirname, '..', 'test-results', 'smoke'),
  reporter: [['list']],
  workers: 1,
  retries: 0,
  timeout: 90 * 1000,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'retain-on-failure',
    video: 'off',
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
    command: `${path.join(venv, 'bin', 'jupyter')} lab --config jupyter_server_smoke_config.py`,
    cwd: __dirname,
    url: `http://127.0.0.1:${port}/lab`,
    timeout: 120 * 1000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      // only the venv's own programs, and no ~/.kube or user-wide Jupyter config can leak in
      PATH: `${path.join(venv, 'bin')}:/usr/bin:/bin`,
      HOME: home,
      JUPYTER_CONFIG_DIR: path.join(home, '.jupyter'),
      JUPYTER_DATA_DIR: path.join(home, '.local', 'share', 'jupyter'),
      KUBERNETES_SERVICE_HOST: '',
      KUBECONFIG: kubeconfig,
      JUPYTER_ACCEL_KUBECONFIG: kubeconfig,
      JUPYTER_ACCEL_NAMESPACE: process.env.JUPYTER_ACCEL_NAMESPACE || 'team-a',
      JUPYTER_ACCEL_SMOKE_PORT: port
    }
  }
};
