// tablehub protocol v1 client library (ES module; browsers and node >= 20).
//
//   import { Client, loadProtocol, fromUrl } from './lib/index.js';
//   const protocol = await loadProtocol(fromUrl('/protocol/v1/'));
//   const client = await Client.connect('ws://host:8000/ws', { name: 'ada', protocol });
//   const table = await client.createTable('nmbr9', 2);
//   await client.join(table);
//   client.on('view', ({ mirror }) => render(mirror.view));
//
// In node, pass a WebSocket implementation: { WebSocket } from the `ws` package.

export { Client, ServerError, ConnectionError, PROTOCOL_VERSION } from './client.js';
export { TableMirror, Role } from './mirror.js';
export { Protocol, ProtocolError, loadProtocol, fromUrl } from './protocol.js';
export { CODECS, codecFor, MSGPACK, JSON_SUBPROTOCOL, DecodeError } from './codec.js';
export { canonicalJSON, viewHash } from './viewhash.js';
export { applyPatch } from './patch.js';
export { COMPACT, GRID, LAYERED, expandGroups, expandGrids, listedActions } from './legal.js';
