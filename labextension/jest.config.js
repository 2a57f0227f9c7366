const jestJupyterLab = require('@jupyterlab/testing/lib/jest-config');

// Packages shipped as ES modules that babel must transform for jest.
const esModules = [
  '@codemirror',
  '@jupyter/react-components',
  '@jupyter/web-components',
  '@jupyter/ydoc',
  '@jupyterlab/',
  '@microsoft',
  'exenv-es6',
  'lib0',
  'nanoid',
  'vscode-ws-jsonrpc',
  'y-protocols',
  'y-websocket',
  'yjs'
].join('|');

const base = jestJupyterLab(__dirname);

module.exports = {
  ...base,
  // jest-junit and github-actions reporters are for CI services we do not use.
  reporters: ['default'],
  // uPlot draws on a canvas, which jsdom lacks
  setupFiles: [...(base.setupFiles ?? []), 'jest-canvas-mock'],
  testRegex: 'src/__tests__/.*\\.spec\\.tsx?$',
  transformIgnorePatterns: [`/node_modules/(?!${esModules}).+`],
  collectCoverageFrom: [
    'src/**/*.{ts,tsx}',
    '!src/**/*.d.ts',
    '!src/generated/**'
  ],
  coverageReporters: ['text-summary', 'lcov']
};
