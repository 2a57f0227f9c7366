/**
 * Jobs on devcluster's real node for the browser tests: its image and LocalQueue come from
 * `python -m devcluster env` (JA_NODE_IMAGE, JA_NODE_QUEUE).
 */
import { APIRequestContext, expect } from '@playwright/test';

/** Makes a job on the real node through the Jupyter server at `base` ('' for the test's own); its name. */
export async function createOnRealNode(
  request: APIRequestContext,
  base: string,
  prefix: string,
  fields: Record<string, unknown>
): Promise<string> {
  const name = `${prefix}-${Date.now().toString(36)}`;
  const created = await request.post(`${base}/accel/v1/jobs`, {
    data: {
      name,
      image: process.env.JA_NODE_IMAGE,
      queue: process.env.JA_NODE_QUEUE || 'real-node',
      ...fields
    }
  });
  expect(created.status(), await created.text()).toBe(201);
  return name;
}
