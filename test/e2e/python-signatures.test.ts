/**
 * Issue 23, point 5: cards signed by `a2a-sdk` 1.3.0 (Python) itself, served by a real a2a-sdk
 * agent (test/python/sdk_agent.py): with the SDK's own signer (`create_agent_card_signer`, RFC 8785)
 * the signature verifies; signed the way a2a-python ≤ 1.1.x did (json.dumps sort_keys with ASCII
 * escapes) it is recognised as a known non-conformant canonical form: verified with a warning,
 * the record naming the form, never reported as tampered. The description holds non-ASCII text
 * so the two forms differ.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PythonServer, startPythonServer } from '../helpers/python.js';
import { jsonOf, readLock, resources, runCli, SLOW, show, verifyStrictTwice } from './helpers.js';

const py = inject('python');
const PROFILE = {
  bindings: ['JSONRPC'],
  versions: ['1.0'],
  accepts: ['text/plain'],
  sends: ['text/plain'],
  streaming: true,
};
const DESCRIPTION = 'Schätzt Märkte – größer, schneller 📈';

describe.skipIf(!py.ok)('cards signed by a2a-sdk (Python)', () => {
  let conformant: PythonServer;
  let legacy: PythonServer;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'py-key', alg: 'ES256', use: 'sig' };

  beforeAll(async () => {
    if (!py.ok) return;
    const options = { description: DESCRIPTION, signKey: pem, signKid: 'py-key', jwks: { keys: [jwk] } };
    [conformant, legacy] = await Promise.all([
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify(options)]),
      startPythonServer(py, 'sdk_agent.py', [JSON.stringify({ ...options, legacySign: true })]),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([conformant?.close(), legacy?.close()]);
  });

  it("signed with a2a-sdk's create_agent_card_signer (RFC 8785): verified by the jku key, verify --strict passes twice", {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const served = await (await fetch(`${conformant.origin}/.well-known/agent-card.json`)).json();
    expect(served.description).toBe(DESCRIPTION);
    expect(served.signatures).toHaveLength(1);
    const res = resources(onTestFinished);
    const dir = await res.dir({
      profile: PROFILE,
      agents: { py: { card: conformant.origin, skills: ['market-size'] } },
    });
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const signature = (await readLock(dir)).agents.py.signature;
    expect(signature).toMatchObject({ status: 'verified', kid: 'py-key', alg: 'ES256' });
    expect(signature.canonicalForm).toBeUndefined();
    expect(lock.stdout + lock.stderr).not.toMatch(/signature-noncanonical-form/);
    await verifyStrictTwice(dir, 'py');
  });

  it('signed in the a2a-python ≤ 1.1 form (\\uXXXX escapes, keys by code point): verified with a warning naming the non-conformant form, the record says which form; never tampered', {
    timeout: SLOW,
  }, async ({ onTestFinished }) => {
    const res = resources(onTestFinished);
    const dir = await res.dir({ profile: PROFILE, agents: { py: { card: legacy.origin, skills: ['market-size'] } } });
    const lock = await runCli(['lock', '--json'], { cwd: dir });
    expect(lock.code, show(lock)).toBe(0);
    const signature = (await readLock(dir)).agents.py.signature;
    expect(signature).toMatchObject({
      status: 'verified',
      kid: 'py-key',
      alg: 'ES256',
      canonicalForm: 'a2a-python-1.1',
    });
    const warnings = JSON.stringify(jsonOf(lock));
    expect(warnings).toMatch(/signature-noncanonical-form/);
    expect(warnings).toMatch(/signed with a known non-conformant canonical form \(a2a-python ≤ 1\.1/);
    expect(warnings).not.toMatch(/signature-unverifiable|does not match/);
    await verifyStrictTwice(dir, 'py');
  });
});
