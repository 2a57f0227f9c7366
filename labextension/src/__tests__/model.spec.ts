import { AccelAPIError, InfoResponse } from '../api';
import { AccelModel, AccelState } from '../model';
import { connectedInfo, notConfiguredInfo } from './fixtures';

/** A fetchInfo that answers from a script of results and counts its calls. */
function scripted(results: Array<InfoResponse | Error>): {
  fetchInfo: () => Promise<InfoResponse>;
  calls: () => number;
} {
  let calls = 0;
  return {
    fetchInfo: async () => {
      const next = results[Math.min(calls, results.length - 1)];
      calls++;
      if (next instanceof Error) {
        throw next;
      }
      return next;
    },
    calls: () => calls
  };
}

function newModel(
  results: Array<InfoResponse | Error>,
  frontendVersion = '1.0.0'
): { model: AccelModel; calls: () => number } {
  const { fetchInfo, calls } = scripted(results);
  // A long interval: only explicit refreshes fetch during a test.
  const model = new AccelModel({
    fetchInfo,
    frontendVersion,
    timing: { refreshInterval: 3600, maxBackoffInterval: 3600 },
    auto: false
  });
  return { model, calls };
}

describe('AccelModel', () => {
  let model: AccelModel;
  afterEach(() => model?.dispose());

  it('starts loading and becomes ready with the server answer', async () => {
    const info = notConfiguredInfo('1.0.0');
    const made = newModel([info]);
    model = made.model;
    expect(model.state.kind).toBe('loading');
    const seen: AccelState[] = [];
    model.stateChanged.connect((_, state) => seen.push(state));
    await model.refresh();
    expect(model.state).toEqual({ kind: 'ready', info });
    expect(seen.map(s => s.kind)).toEqual(['ready']);
    expect(made.calls()).toBe(1);
  });

  it('refuses to run on a version mismatch and stops asking', async () => {
    const made = newModel(
      [connectedInfo('2.0.0'), connectedInfo('1.0.0')],
      '1.0.0'
    );
    model = made.model;
    await model.refresh();
    expect(model.state.kind).toBe('version_mismatch');
    if (model.state.kind === 'version_mismatch') {
      expect(model.state.check.frontend).toBe('1.0.0');
      expect(model.state.check.server).toBe('2.0.0');
    }
    await model.refresh();
    await model.refresh();
    expect(made.calls()).toBe(1);
    expect(model.state.kind).toBe('version_mismatch');
  });

  it('reports an unreachable server with its status and recovers', async () => {
    const made = newModel([
      new AccelAPIError(503, 'The server is restarting.'),
      notConfiguredInfo('1.0.0')
    ]);
    model = made.model;
    await model.refresh();
    expect(model.state).toEqual({
      kind: 'unreachable',
      message: 'The server is restarting.',
      status: 503
    });
    await model.refresh();
    expect(model.state.kind).toBe('ready');
    expect(made.calls()).toBe(2);
  });

  it('reports a network failure without a status', async () => {
    const made = newModel([new Error('Failed to fetch')]);
    model = made.model;
    await model.refresh();
    expect(model.state).toEqual({
      kind: 'unreachable',
      message: 'Failed to fetch',
      status: null
    });
  });

  it('refreshes on demand even while paused', async () => {
    const made = newModel([notConfiguredInfo('1.0.0')]);
    model = made.model;
    model.paused = true;
    await model.refresh();
    expect(made.calls()).toBe(1);
    expect(model.state.kind).toBe('ready');
  });

  it('does not poll while paused', async () => {
    const { fetchInfo, calls } = scripted([notConfiguredInfo('1.0.0')]);
    model = new AccelModel({
      fetchInfo,
      frontendVersion: '1.0.0',
      timing: { refreshInterval: 0.05, maxBackoffInterval: 1 },
      auto: false
    });
    model.paused = true;
    // configure() with the poll stopped must not start it either
    model.configure({ refreshInterval: 0.05, maxBackoffInterval: 1 });
    await new Promise(resolve => setTimeout(resolve, 300));
    expect(calls()).toBe(0);
  });

  it('polls by itself when started and not paused', async () => {
    const { fetchInfo, calls } = scripted([notConfiguredInfo('1.0.0')]);
    model = new AccelModel({
      fetchInfo,
      frontendVersion: '1.0.0',
      timing: { refreshInterval: 1, maxBackoffInterval: 1 }
    });
    await new Promise(resolve => setTimeout(resolve, 1500));
    expect(calls()).toBeGreaterThanOrEqual(2);
    expect(model.state.kind).toBe('ready');
  });

  it('emits nothing after dispose', async () => {
    const made = newModel([notConfiguredInfo('1.0.0')]);
    model = made.model;
    model.dispose();
    expect(model.isDisposed).toBe(true);
    await model.refresh();
    expect(made.calls()).toBe(0);
  });
});
