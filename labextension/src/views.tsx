/**
 * The sidebar's cluster sections as React components: Accelerators, Queues,
 * My jobs and Launch (one module each under sections/). State lives in
 * ClusterModel; actions come in as props.
 */
import * as React from 'react';

import type { ClusterModel } from './cluster';
import type { ILaunchForm } from './launch';
import { Section, StreamStatus } from './components/common';
import { AcceleratorsSection } from './sections/accelerators';
import { JobsSection } from './sections/jobs';
import { LaunchForm } from './sections/launch';
import { QueuesSection } from './sections/queues';
import { WorkbenchSection } from './sections/workbench';
import type { IClusterActions, SectionId } from './sections/types';

export { ProgressBar, StatusBadge } from './components/common';
export { SECTION_TITLES } from './sections/types';
export type { IClusterActions, SectionId } from './sections/types';

export interface IClusterViewProps {
  model: ClusterModel;
  actions: IClusterActions;
  expanded: Record<SectionId, boolean>;
  onToggle: (id: SectionId) => void;
  readOnly: boolean;
  now: number;
  /** Bumped by the "launch job" command to focus the form. */
  focusLaunch: number;
  /** What the launch form is filled with when focusLaunch changes. */
  launchPreset?: Partial<ILaunchForm> | null;
}

export function ClusterView(props: IClusterViewProps): JSX.Element {
  const { model, expanded, onToggle } = props;
  const { workbench: read, changeWorkbenchProfile: change } = props.actions;
  const workbench = React.useMemo(
    () =>
      read && change
        ? { workbench: read, changeWorkbenchProfile: change }
        : null,
    [read, change]
  );
  const fetchNodes = React.useCallback(
    (key: string, offset: number, limit: number) =>
      model.fetchNodes(key, offset, limit),
    [model]
  );
  return (
    <div className="jp-accel-cluster">
      <StreamStatus state={model.streamState} error={model.streamError} />
      {workbench && (
        <Section id="workbench" expanded={expanded} onToggle={onToggle}>
          <WorkbenchSection
            actions={workbench}
            profiles={model.profiles.data?.profiles ?? []}
            readOnly={props.readOnly}
          />
        </Section>
      )}
      <Section id="accelerators" expanded={expanded} onToggle={onToggle}>
        <AcceleratorsSection
          inventory={model.inventory}
          fetchNodes={fetchNodes}
          profiles={model.profiles.data?.profiles ?? []}
          profilesVisibility={model.profiles.data?.visibility}
        />
      </Section>
      <Section id="queues" expanded={expanded} onToggle={onToggle}>
        <QueuesSection queues={model.queues} usage={model.queueUsage} />
      </Section>
      <Section id="jobs" expanded={expanded} onToggle={onToggle}>
        <JobsSection
          jobs={model.jobs}
          scope={model.scope}
          onScope={scope => (model.scope = scope)}
          actions={props.actions}
          readOnly={props.readOnly}
          now={props.now}
          utilization={model.utilization}
        />
      </Section>
      <Section id="launch" expanded={expanded} onToggle={onToggle}>
        {props.readOnly ? (
          <p className="jp-accel-note">
            Read-only: the administrator disabled launching jobs.
          </p>
        ) : (
          <LaunchForm
            model={model}
            actions={props.actions}
            focus={props.focusLaunch}
            preset={props.launchPreset}
          />
        )}
      </Section>
    </div>
  );
}
