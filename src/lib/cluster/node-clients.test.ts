import { describe, expect, it } from 'vitest';
import { StorageNodeClients } from './node-clients.ts';

describe('StorageNodeClients', () => {
  it('makes one client per address and, at shutdown, closes them after the coordinator settled', async () => {
    const events: string[] = [];
    const nodes = new StorageNodeClients(['a:1', 'b:2'], (address) => ({ address, close: async () => void events.push(`close ${address}`) }));
    expect(nodes.nodes.map((n) => [n.name, n.client.address])).toEqual([['a:1', 'a:1'], ['b:2', 'b:2']]);
    const step = nodes.shutdownStep({ close: () => void events.push('coordinator close'), idle: async () => void events.push('coordinator idle') });
    expect(step.name).toBe('storage node clients');
    await step.stop();
    expect(events).toEqual(['coordinator close', 'coordinator idle', 'close a:1', 'close b:2']);
  });
});
