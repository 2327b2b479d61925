// Test support: one real hub for a node test file -- started (with the protocol files
// loaded) before its tests, stopped after them together with every client `connect`
// opened.  `shared.hub` and `shared.protocol` are set once the tests run.

import { after, before } from 'node:test';
import WebSocket from 'ws';

import { Client, loadProtocol } from '../lib/index.js';
import { readProtocolFile, startHub } from './hub.js';

export function sharedHub() {
  const clients = [];
  const shared = {
    hub: null,
    protocol: null,
    /** A client connected to the hub (or `options.url`), closed after the file's tests. */
    async connect(name, options = {}) {
      const client = await Client.connect(options.url ?? shared.hub.ws, {
        name,
        protocol: shared.protocol,
        WebSocket,
        ...options,
      });
      clients.push(client);
      return client;
    },
  };
  before(async () => {
    shared.protocol = await loadProtocol(readProtocolFile);
    shared.hub = await startHub();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await shared.hub?.stop();
  });
  return shared;
}
