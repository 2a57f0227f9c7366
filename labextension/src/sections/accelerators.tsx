/** The Accelerators section: per-model summaries, their nodes on demand, and the hardware profiles. */
import * as React from 'react';

import type {
  AcceleratorModelSummary,
  HardwareProfileView,
  InventoryResponse,
  Visibility
} from '../api';
import { IResource } from '../cluster';
import { deviceBar, formatMemoryMiB, freeText } from '../present';
import { Bar, NotVisible, ResourceState } from '../components/common';

export function AcceleratorsSection(props: {
  inventory: IResource<InventoryResponse>;
  profiles: HardwareProfileView[];
  profilesVisibility: Visibility | undefined;
}): JSX.Element {
  const data = props.inventory.data;
  return (
    <div className="jp-accel-inventory">
      <ResourceState resource={props.inventory} what="accelerators" />
      {data && (
        <>
          <NotVisible visibility={data.visibility} what="Nodes are" />
          <NotVisible visibility={data.pods_visibility} what="Pods are" />
          {data.visibility?.visible !== false &&
            (data.models ?? []).length === 0 && (
              <p className="jp-accel-muted">No accelerators in this cluster.</p>
            )}
          <ul className="jp-accel-models" aria-label="Accelerator models">
            {(data.models ?? []).map(m => (
              <ModelRow key={m.key} model={m} inventory={data} />
            ))}
          </ul>
        </>
      )}
      <h4 className="jp-accel-subtitle">Hardware profiles</h4>
      <NotVisible
        visibility={props.profilesVisibility}
        what="Hardware profiles are"
      />
      {props.profiles.length === 0 ? (
        <p className="jp-accel-muted">No hardware profiles on offer.</p>
      ) : (
        <ul className="jp-accel-profiles" aria-label="Hardware profiles">
          {props.profiles
            .filter(p => p.enabled)
            .map(p => (
              <li key={p.name} className="jp-accel-profile">
                <span className="jp-accel-strong">{p.display_name}</span>
                <span className="jp-accel-muted">
                  {' '}
                  {p.accelerator ?? 'CPU only'}
                  {p.local_queue_name ? ` · queue ${p.local_queue_name}` : ''}
                </span>
                {p.description && (
                  <div className="jp-accel-muted">{p.description}</div>
                )}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

function ModelRow(props: {
  model: AcceleratorModelSummary;
  inventory: InventoryResponse;
}): JSX.Element {
  const { model } = props;
  const [open, setOpen] = React.useState(false);
  const nodes = (props.inventory.nodes ?? []).flatMap(n =>
    (n.accelerators ?? [])
      .filter(a => a.resource === model.resource && a.model === model.model)
      .map(a => ({ node: n, acc: a }))
  );
  const memory = formatMemoryMiB(model.memory_mib);
  return (
    <li className="jp-accel-model" data-model={model.model}>
      <button
        type="button"
        className="jp-accel-model-head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="jp-accel-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="jp-accel-model-name">
          <span className="jp-accel-strong">{model.model}</span>
          <span className="jp-accel-muted">
            {' '}
            {model.vendor_name}
            {memory ? ` · ${memory}` : ''} · {model.node_count}{' '}
            {model.node_count === 1 ? 'node' : 'nodes'}
          </span>
        </span>
        <span className="jp-accel-model-free">{freeText(model)}</span>
      </button>
      <Bar bar={deviceBar(model)} />
      {open && (
        <ul className="jp-accel-nodes" aria-label={`Nodes with ${model.model}`}>
          {nodes.map(({ node, acc }) => (
            <li key={node.name} className="jp-accel-node">
              <div className="jp-accel-node-head">
                <span>{node.name}</span>
                <span className="jp-accel-muted">
                  {!node.ready
                    ? 'not ready'
                    : node.unschedulable
                      ? 'cordoned'
                      : freeText(acc)}
                </span>
              </div>
              <Bar bar={deviceBar(acc)} className="jp-accel-bar-small" />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
