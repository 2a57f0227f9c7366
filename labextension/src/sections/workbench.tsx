/**
 * The "This workbench" section: the Notebook this server runs in (accelerators, hardware profile, queue), and a
 * change of hardware profile: a checked preview first (the jobs' fit check and the patch), then the patch, made by
 * the server with the user's identity. The platform restarts the workbench; the section says what that costs.
 */
import * as React from 'react';

import type {
  HardwareProfileView,
  WorkbenchProfileRequest,
  WorkbenchProfileResponse,
  WorkbenchView
} from '../api';
import { FitVerdict } from './launch';

export interface IWorkbenchActions {
  workbench(): Promise<WorkbenchView>;
  /** Preview (dry_run) or apply; applying asks the user first, with `warning`, and answers null if declined. */
  changeWorkbenchProfile(
    request: WorkbenchProfileRequest,
    warning?: string
  ): Promise<WorkbenchProfileResponse | null>;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function WorkbenchSection(props: {
  actions: IWorkbenchActions;
  profiles: HardwareProfileView[];
  readOnly: boolean;
}): JSX.Element {
  const { actions } = props;
  const [view, setView] = React.useState<WorkbenchView | null>(null);
  const [error, setError] = React.useState('');
  const [choice, setChoice] = React.useState('');
  const [preview, setPreview] = React.useState<WorkbenchProfileResponse | null>(
    null
  );
  const [busy, setBusy] = React.useState(false);

  const load = React.useCallback(async () => {
    try {
      setView(await actions.workbench());
      setError('');
    } catch (e) {
      setError(errorText(e));
    }
  }, [actions]);
  React.useEffect(() => void load(), [load]);

  // what the dashboard offers for workbenches: enabled HardwareProfiles visible there
  const offered = props.profiles.filter(
    p =>
      p.kind === 'HardwareProfile' &&
      p.enabled !== false &&
      ((p.visible_in ?? []).length === 0 ||
        (p.visible_in ?? []).includes('workbench'))
  );
  const request = (dry_run: boolean): WorkbenchProfileRequest => {
    const p = offered.find(o => `${o.namespace ?? ''}/${o.name}` === choice);
    return {
      hardware_profile: p?.name ?? '',
      hardware_profile_namespace: p?.namespace ?? null,
      queue: null,
      dry_run
    };
  };
  const run = async (dry: boolean) => {
    setBusy(true);
    try {
      const answer = await actions.changeWorkbenchProfile(
        request(dry),
        preview?.warning
      );
      if (answer) {
        setPreview(answer);
        setView(answer.workbench);
      }
      setError('');
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="jp-accel-workbench">
      {view && (
        <>
          {/* the message says it when the Notebook is not visible, and what an admin must allow */}
          <p className="jp-accel-workbench-message">{view.message}</p>
          {view.found && view.queue && (
            <p className="jp-accel-muted">
              Queue {view.queue}
              {view.kueue_managed ? ' (Kueue-managed project)' : ''}
            </p>
          )}
        </>
      )}
      {view?.found && !props.readOnly && (
        <div className="jp-accel-workbench-change">
          <label htmlFor="jp-accel-workbench-profile">Hardware profile</label>
          <select
            id="jp-accel-workbench-profile"
            value={choice}
            onChange={e => {
              setChoice(e.target.value);
              setPreview(null);
            }}
          >
            <option value="">Choose a profile…</option>
            {offered.map(p => (
              <option
                key={`${p.namespace ?? ''}/${p.name}`}
                value={`${p.namespace ?? ''}/${p.name}`}
              >
                {p.display_name}
                {p.name === view.hardware_profile ? ' (now)' : ''}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="jp-mod-styled"
            disabled={!choice || busy}
            onClick={() => void run(true)}
          >
            Check
          </button>
          {preview && (
            <div
              className="jp-accel-workbench-preview"
              data-applied={preview.applied}
            >
              <FitVerdict state={{ kind: 'done', fit: preview.fit }} />
              <p className="jp-accel-note jp-accel-tone-warn">
                {preview.warning}
              </p>
              {preview.applied ? (
                <p className="jp-accel-muted">
                  Changed. The platform applies it when it restarts the
                  workbench.
                </p>
              ) : preview.patch.length === 0 ? (
                <p className="jp-accel-muted">It already has this profile.</p>
              ) : (
                <button
                  type="button"
                  className="jp-mod-styled jp-mod-warn"
                  disabled={busy}
                  onClick={() => void run(false)}
                >
                  Change profile
                </button>
              )}
            </div>
          )}
        </div>
      )}
      {error && (
        <p className="jp-accel-note jp-accel-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
