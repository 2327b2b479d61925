// Test support: a TCP proxy in front of the hub whose connections can be cut, to make
// a client see a real network failure (no close handshake) and reconnect.

import { createServer, connect } from 'node:net';

export async function startProxy(targetPort) {
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    ws: `ws://127.0.0.1:${port}/ws`,
    /** Destroy every open connection (both directions), as a network failure would. */
    cut() {
      for (const s of sockets) s.destroy();
    },
    get open() {
      return sockets.size;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
