/**
 * The front-end's own version and the rule that decides whether it may run
 * against a given server extension.
 */

// The bundler inlines package.json; importing it would put it outside rootDir.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const packageJson = require('../package.json') as { version: string };

/** Version of this labextension, from labextension/package.json. */
export const FRONTEND_VERSION: string = packageJson.version;

/** The outcome of comparing the front-end's version with the server's. */
export interface IVersionCheck {
  compatible: boolean;
  frontend: string;
  server: string;
  /** Why the panel refuses to run; empty when compatible. */
  message: string;
}

/**
 * The PEP 440 spelling of a semver version, the way hatch-nodejs-version
 * derives the Python package's version (1.2.0-alpha.1 -> 1.2.0a1), so a
 * pre-release pair compares equal across the two registries.
 */
export function toPep440(version: string): string {
  const match = /^v?(\d+\.\d+\.\d+)(?:-(alpha|beta|rc|a|b)\.?(\d+))?$/.exec(
    version.trim()
  );
  if (!match) {
    return version.trim();
  }
  const [, release, tag, num] = match;
  if (!tag) {
    return release;
  }
  const short = { alpha: 'a', a: 'a', beta: 'b', b: 'b', rc: 'rc' }[tag];
  return `${release}${short}${num}`;
}

/**
 * The panel runs only against exactly its own version: the wire schema is
 * generated per release, so any skew can mean a silently wrong answer.
 */
export function checkVersion(frontend: string, server: string): IVersionCheck {
  const compatible =
    server.trim() !== '' && toPep440(frontend) === toPep440(server);
  const message = compatible
    ? ''
    : `The Accelerators panel (version ${frontend}) does not match the jupyter-accel ` +
      `server extension (version ${server || 'unknown'}). Install the same version ` +
      'of jupyter-accel for the server and JupyterLab, restart the server and reload the page.';
  return { compatible, frontend, server, message };
}
