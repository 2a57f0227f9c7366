/** The Accelerators section: per-model summaries, their nodes on demand, and the hardware profiles. */
import * as React from 'react';

import type {
  AcceleratorModelSummary,
  HardwareProfileView,
  InventoryNodesResponse,
  InventoryResponse,
  NodeAccelerators,
  Visibility
} from '../api';
import { IResource } from '../cluster';
import { deviceBar, freeText } from '../present';
import { Bar, NotVisible, ResourceState } from '../components/common';
import { useRenderTiming } from '../components/timing';

/** Nodes per page of an open model: a cluster of 1,000 GPU nodes is paged, not sent whole. */
export const NODE_PAGE = 100;

export type FetchNodes = (
  model: string,
  offset: number,
  limit: number
) => Promise<InventoryNodesResponse>;

/** Memoized, as are its rows: a push of new jobs re-renders the panel, not 100 node rows. */
export const AcceleratorsSection = React.memo(
  (props: {
    inventory: IResource<InventoryResponse>;
    fetchNodes: FetchNodes;
    profiles: HardwareProfileView[];
    profilesVisibility: Visibility | undefined;
  }): JSX.Element => {
    const data = props.inventory.data;
    useRenderTiming('accelerators', data?.models?.length ?? 0);
    return (
      <div className="jp-accel-inventory">
        <ResourceState resource={props.inventory} what="accelerators" />
        {data && (
          <>
            <NotVisible visibility={data.visibility} what="Nodes are" />
            <NotVisible visibility={data.pods_visibility} what="Pods are" />
            {data.free_source && (
              <p className="jp-accel-muted jp-accel-free-source">
                {data.free_source}
              </p>
            )}
            {data.visibility?.visible !== false &&
              (data.models ?? []).length === 0 && (
                <p className="jp-accel-muted">
                  No accelerators in this cluster.
                </p>
              )}
            <ul className="jp-accel-models" aria-label="Accelerator models">
              {(data.models ?? []).map(m => (
                <ModelRow
                  key={m.key}
                  model={m}
                  inventory={data}
                  fetchNodes={props.fetchNodes}
                />
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
);

const ModelRow = React.memo(
  (props: {
    model: AcceleratorModelSummary;
    /** A new answer (after a push) refetches the open page. */
    inventory: InventoryResponse;
    fetchNodes: FetchNodes;
  }): JSX.Element => {
    const { model, fetchNodes } = props;
    const [open, setOpen] = React.useState(false);
    const [offset, setOffset] = React.useState(0);
    const [page, setPage] = React.useState<InventoryNodesResponse | null>(null);
    const [error, setError] = React.useState<string | null>(null);
    React.useEffect(() => {
      if (!open) {
        return;
      }
      let live = true;
      fetchNodes(model.key, offset, NODE_PAGE).then(
        answer => {
          if (live) {
            setPage(answer);
            setError(null);
          }
        },
        (reason: unknown) => {
          if (live) {
            setError(reason instanceof Error ? reason.message : String(reason));
          }
        }
      );
      return () => {
        live = false;
      };
    }, [open, offset, model.key, props.inventory, fetchNodes]);
    const memory = model.memory_text;
    const nodes: NodeAccelerators[] = page?.nodes ?? [];
    const total = page?.total ?? model.node_count;
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
        {open && error && <p className="jp-accel-error">{error}</p>}
        {open && !page && !error && <p className="jp-accel-muted">Loading…</p>}
        {open && page && <NodeList nodes={nodes} model={model} />}
        {open && page && total > NODE_PAGE && (
          <div className="jp-accel-pager">
            <button
              type="button"
              className="jp-accel-link"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - NODE_PAGE))}
            >
              Previous
            </button>
            <span className="jp-accel-muted">
              {`Nodes ${offset + 1}–${offset + nodes.length} of ${total}`}
            </span>
            <button
              type="button"
              className="jp-accel-link"
              disabled={offset + NODE_PAGE >= total}
              onClick={() => setOffset(offset + NODE_PAGE)}
            >
              Next
            </button>
          </div>
        )}
      </li>
    );
  }
);

const NodeList = React.memo(
  (props: {
    nodes: NodeAccelerators[];
    model: AcceleratorModelSummary;
  }): JSX.Element => {
    useRenderTiming('nodes', props.nodes.length);
    return (
      <ul
        className="jp-accel-nodes"
        aria-label={`Nodes with ${props.model.model}`}
      >
        {props.nodes.map(node => (
          <NodeRow key={node.name} node={node} model={props.model} />
        ))}
      </ul>
    );
  }
);

function NodeRow(props: {
  node: NodeAccelerators;
  model: AcceleratorModelSummary;
}): JSX.Element {
  const { node, model } = props;
  const acc = (node.accelerators ?? []).find(
    a => a.resource === model.resource && a.model === model.model
  );
  return (
    <li className="jp-accel-node">
      <div className="jp-accel-node-head">
        <span>{node.name}</span>
        {node.usable ? (
          <span className="jp-accel-muted">{acc ? freeText(acc) : ''}</span>
        ) : (
          <span
            className={`jp-accel-node-state jp-accel-tone-${node.tone}`}
            data-tone={node.tone}
          >
            {node.label}
          </span>
        )}
      </div>
      {acc && <Bar bar={deviceBar(acc)} className="jp-accel-bar-small" />}
    </li>
  );
}
