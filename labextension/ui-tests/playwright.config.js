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

// JA_UI_CLUSTER=1: a second server, connected to the devcluster, runs tests/cluster.spec.ts.
// Its kubeconfig and namespace come from the environment (`python -m devcluster env`).
const cluster = process.env.JA_UI_CLUSTER === '1';
const clusterPort =
  process.env.JUPYTER_ACCEL_UI_CLUSTER_PORT || String(Number(port) + 1);
const clusterURL = `http://127.0.0.1:${clusterPort}`;
const clusterKubeconfig =
  process.env.JA_UI_KUBECONFIG || process.env.KUBECONFIG_QUEUE_VIEWER || '';
if (cluster && !clusterKubeconfig) {
  throw new Error(
    'JA_UI_CLUSTER=1 needs KUBECONFIG_QUEUE_VIEWER (or JA_UI_KUBECONFIG): eval "$(python -m devcluster env)"'
  );
}
const CLUSTER_SPEC = /cluster\.spec\.ts$/;
// JA_WORKBENCH_URL (scripts/test-frontend.sh, `python -m devcluster workbench`): the real workbench pod, reached
// through the API server; tests/workbench.pod.spec.ts runs against it, and no server of this config serves it.
const workbenchURL = process.env.JA_WORKBENCH_URL || '';
const WORKBENCH_SPEC = /workbench\.pod\.spec\.ts$/;

const jupyter = (serverPort, env) => ({
  command: `${path.join(venv, 'bin', 'jupyter')} lab --config jupyter_server_test_config.py`,
  cwd: __dirname,
  url: `http://127.0.0.1:${serverPort}/lab`,
  timeout: 120 * 1000,
  reuseExistingServer: false,
  stdout: 'pipe',
  stderr: 'pipe',
  env: {
    HOME: home,
    KUBERNETES_SERVICE_HOST: '',
    JUPYTER_ACCEL_UI_PORT: serverPort,
    ...env
  }
});

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
  projects: [
    {
      name: 'no-cluster',
      testIgnore: [CLUSTER_SPEC, WORKBENCH_SPEC],
      use: { baseURL }
    },
    ...(cluster
      ? [
          {
            name: 'cluster',
            testMatch: CLUSTER_SPEC,
            use: { baseURL: clusterURL }
          }
        ]
      : []),
    ...(workbenchURL
      ? [
          {
            name: 'workbench-pod',
            testMatch: WORKBENCH_SPEC,
            use: { baseURL: workbenchURL }
          }
        ]
      : [])
  ],
  webServer: [
    jupyter(port, { KUBECONFIG: '', JUPYTER_ACCEL_KUBECONFIG: '' }),
    ...(cluster
      ? [
          jupyter(clusterPort, {
            KUBECONFIG: clusterKubeconfig,
            JUPYTER_ACCEL_KUBECONFIG: clusterKubeconfig,
            JUPYTER_ACCEL_NAMESPACE:
              process.env.JUPYTER_ACCEL_NAMESPACE || 'team-a',
            // the workbench devcluster seeds a Notebook for (data/workbench.yaml): "This workbench" reads it
            NB_PREFIX: '/notebook/team-a/notebook-tests'
          })
        ]
      : [])
  ]
};
