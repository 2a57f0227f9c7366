import { checkVersion, FRONTEND_VERSION, toPep440 } from '../version';

describe('toPep440', () => {
  it.each([
    ['1.2.3', '1.2.3'],
    ['v1.2.3', '1.2.3'],
    ['1.2.0-alpha.1', '1.2.0a1'],
    ['1.2.0-beta.2', '1.2.0b2'],
    ['1.2.0-rc.3', '1.2.0rc3'],
    ['1.2.0a1', '1.2.0a1']
  ])('%s -> %s', (semver, pep440) => {
    expect(toPep440(semver)).toBe(pep440);
  });
});

describe('checkVersion', () => {
  it('accepts the same version', () => {
    const check = checkVersion('0.3.1', '0.3.1');
    expect(check.compatible).toBe(true);
    expect(check.message).toBe('');
  });

  it('accepts a semver pre-release against its PEP 440 spelling', () => {
    expect(checkVersion('0.4.0-alpha.2', '0.4.0a2').compatible).toBe(true);
  });

  it.each([
    ['0.3.1', '0.3.2'],
    ['0.3.1', '1.3.1'],
    ['0.4.0-alpha.2', '0.4.0'],
    ['0.4.0-alpha.2', '0.4.0b2']
  ])('refuses %s against server %s, naming both', (frontend, server) => {
    const check = checkVersion(frontend, server);
    expect(check.compatible).toBe(false);
    expect(check.message).toContain(`version ${frontend}`);
    expect(check.message).toContain(`version ${server}`);
  });

  it('refuses an empty server version', () => {
    const check = checkVersion('0.3.1', '');
    expect(check.compatible).toBe(false);
    expect(check.message).toContain('version unknown');
  });

  it('reads the front-end version from package.json', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../package.json') as { version: string };
    expect(FRONTEND_VERSION).toBe(pkg.version);
    expect(FRONTEND_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
