import { describe, expect, it } from 'vitest';
import { BackendConfigError, chooseBackends, replicaProblem } from './config.js';

describe('backend configuration fails closed', () => {
  it('refuses an unknown scheme in PIPEC_STORE or PIPEC_BROKER with one line naming the variable', () => {
    expect(() => chooseBackends({ PIPEC_STORE: 'postgress://u:secret@db/app' })).toThrow(BackendConfigError);
    expect(() => chooseBackends({ PIPEC_STORE: 'postgress://u:secret@db/app' })).toThrow(
      /^PIPEC_STORE has an unknown scheme "postgress:" \(expected postgres:\/\/ or postgresql:\/\/\)/,
    );
    expect(() => chooseBackends({ PIPEC_BROKER: 'nats://a:4222,nast://b:4222' })).toThrow(
      /^PIPEC_BROKER has an unknown scheme "nast:"/,
    );
    expect(() => chooseBackends({ PIPEC_BROKER: 'localhost:4222' })).toThrow(/^PIPEC_BROKER has an unknown scheme/);
    // Never the password of the URL.
    try {
      chooseBackends({ PIPEC_STORE: 'mysql://u:secret@db/app' });
    } catch (err) {
      expect(String(err)).not.toContain('secret');
      expect(String(err)).not.toContain('\n');
    }
    expect(() => chooseBackends({ PIPEC_REPLICAS: 'three' })).toThrow(/^PIPEC_REPLICAS must be a whole number/);
  });

  it('takes the known schemes, and unset or empty as embedded', () => {
    expect(chooseBackends({})).toEqual({ replicas: 1 });
    expect(chooseBackends({ PIPEC_STORE: '', PIPEC_BROKER: ' ' })).toEqual({ replicas: 1 });
    expect(
      chooseBackends({
        PIPEC_STORE: 'postgresql://db/app',
        PIPEC_BROKER: 'tls://a:4222,nats://b:4222',
        PIPEC_REPLICAS: '3',
      }),
    ).toEqual({ storeUrl: 'postgresql://db/app', brokerUrl: 'tls://a:4222,nats://b:4222', replicas: 3 });
  });

  it('with several replicas, refuses each mix that would not be shared for what the service uses', () => {
    const uses = { stores: ['orders'], eventPipelines: ['on-order'] };
    const none = { stores: [], eventPipelines: [] };
    const pg = 'postgres://db/app';
    const nats = 'nats://n:4222';
    // One replica: every mix is correct.
    expect(replicaProblem({ replicas: 1 }, uses)).toBeNull();
    // Nothing shared at all: refused whatever the service uses (schedules would fire on every replica).
    expect(replicaProblem({ replicas: 3 }, none)).toMatch(
      /embedded backends only.*every replica would fire every schedule tick/,
    );
    // PostgreSQL alone: stores and schedules shared, events not.
    expect(replicaProblem({ replicas: 3, storeUrl: pg }, { stores: ['orders'], eventPipelines: [] })).toBeNull();
    expect(replicaProblem({ replicas: 3, storeUrl: pg }, uses)).toMatch(/without PIPEC_BROKER: the events of on-order/);
    // NATS alone: events and schedules shared, stores not.
    expect(replicaProblem({ replicas: 3, brokerUrl: nats }, { stores: [], eventPipelines: ['on-order'] })).toBeNull();
    expect(replicaProblem({ replicas: 3, brokerUrl: nats }, uses)).toMatch(/without PIPEC_STORE: the stores orders/);
    // Both: everything shared.
    expect(replicaProblem({ replicas: 3, storeUrl: pg, brokerUrl: nats }, uses)).toBeNull();
  });
});
