// Client: one protocol-v1 connection to a tablehub server, with live table mirrors.
//
// Theory of operation.  `connect()` opens a WebSocket with the chosen subprotocol
// (msgpack by default, JSON for debugging), sends `hello` and resolves with its reply.
// Every inbound frame is decoded and handled in arrival order on one promise chain
// (hash checks are async), so a reply is seen after every push that preceded it.
// `ok`/`error` settle the request with the same `id`; `snapshot` replaces a table's
// mirror; `patch` is applied when its `from` is the version we hold and its `hash` must
// match the result.  A gap (a patch from a later version) sends `resync` with the
// version we hold, which brings one catch-up patch; a hash mismatch or a patch that does
// not apply sends `resync` without a version, which brings a fresh snapshot.
//
// When the socket drops without `close()`, the client reconnects with exponential
// backoff (with jitter) and sends `hello` with `resume`: the seat token and last version
// of every table it plays, the last version of every table it watches; the server
// answers with the missed patches or a snapshot.  The lobby subscription is renewed.
//
// The client asks for the `batch` capability: a `batch` frame is taken apart and its
// messages handled in order, each as if it had come alone (`inspect` sees each one).
//
// Retries (protocol/README.md "Idempotent requests and retries"): `createTable`,
// `join` (without a token) and `act` carry a fresh idempotency `key`; an error with
// `retry_ms` (`overloaded`, `unavailable`) is sent again with the same key after that
// long, doubling per retry with jitter, at most `retry.maxMs` a wait and `retry.tries`
// tries, and a `waiting` event says so in words meanwhile.
//
// `legal` asks in the cheapest form first, the layered grid.  A hub older than a form
// refuses it as `bad_message` (the value is not in its schema), so on that refusal the
// ask is sent again in the next cheaper form (LEGAL_FORMS: layered, grid, compact, then
// plain, without `form`) and the form the hub took is kept for the connection's later
// asks (`legalForm`; a new socket -- a reconnect, `moveTo` -- starts from layered again).
// Any other error, and `bad_message` to the plain ask, is thrown as before.
//
// Events (`on(type, fn)` returns an unsubscribe function):
//   state         {state}             idle | connecting | open | reconnecting | closed
//   open          hello reply         after every successful hello (first and resumed)
//   view          {table, mirror, kind: "snapshot" | "patch"}
//   event         {table, version, events}
//   presence      {table, mirror, presence}
//   tables        lobby table list    (after subscribeTables)
//   table_closed  {table, reason}
//   resync        {table, reason}
//   mismatch      {table, expected, got}
//   resume_failed {table, code}
//   close         {code, reason, willReconnect}
//   retry         {attempt, delayMs}  a reconnect attempt is scheduled
//   waiting       {type, code, attempt, delayMs, message}  a request waits to be sent
//                                     again; `message` says so in words for players
//   error         Error               unsolicited errors (error replies with id null, bad frames)
//   message       raw message         every inbound message, after handling

import { codecFor, MSGPACK } from './codec.js';
import { COMPACT, GRID, LAYERED, listedActions } from './legal.js';
import { Role, TableMirror } from './mirror.js';
import { applyPatch } from './patch.js';
import { viewHash } from './viewhash.js';

export const PROTOCOL_VERSION = 1;
const MAX_RESUME = 16; // hello.json: resume.maxItems
const MAX_EVENTS = 200;

/**
 * The forms `legal` asks in, cheapest first: each next one is what a hub that refuses the
 * one before (`bad_message`: older than it) is asked in; `plain` is asked without `form`.
 */
export const LEGAL_FORMS = [LAYERED, GRID, COMPACT, 'plain'];

/** An `error` reply: `code` is the stable wire code (protocol/v1/index.json). */
export class ServerError extends Error {
  constructor(code, message, request, retryMs) {
    super(`${code}: ${message}`);
    this.name = 'ServerError';
    this.code = code;
    this.reason = message;
    this.request = request;
    /** On retryable errors (`overloaded`, `unavailable`): when to send it again. */
    this.retryMs = retryMs;
  }
}

const WAIT_REASONS = {
  overloaded: 'the server is busy',
  unavailable: 'the server cannot reach its storage right now',
};
const DOING = {
  act: 'sending your move',
  legal: 'asking for your choices',
  join: 'taking the seat',
  create_table: 'creating the table',
};

/** What a player is told while a request waits for its retry. */
export function waitingWords(type, code, delayMs, attempt, tries) {
  const reason = WAIT_REASONS[code] ?? 'the server asked to wait a moment';
  const seconds = (delayMs / 1000).toFixed(1);
  return `${reason}: ${DOING[type] ?? 'asking'} again in ${seconds} s (try ${attempt + 1} of ${tries})`;
}

/** A fresh idempotency key: 32 random URL-safe characters. */
export function newKey() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(24));
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_');
}

/** The connection went away before a reply came (or a request timed out). */
export class ConnectionError extends Error {
  constructor(message, code = 'disconnected') {
    super(message);
    this.name = 'ConnectionError';
    this.code = code;
  }
}

const DEFAULTS = {
  subprotocol: MSGPACK,
  caps: ['batch'],
  protocol: null, // a Protocol (lib/protocol.js): validate requests, check the schema fingerprint
  WebSocket: globalThis.WebSocket,
  reconnect: true,
  backoff: { initialMs: 250, maxMs: 5000, factor: 2 },
  retry: { tries: 8, maxMs: 5000 }, // requests the server asks to send again (retry_ms)
  maxAttempts: Infinity,
  requestTimeoutMs: 20000,
  resyncRetryMs: 3000,
  inspect: null, // (msg) => false drops an inbound message (debugging and tests)
};

export class Client {
  /**
   * @param {string} url   ws:// or wss:// URL of the hub's /ws endpoint
   * @param {object} options  name (display name, required) and any of DEFAULTS
   */
  constructor(url, options = {}) {
    if (!options.name) throw new TypeError('Client needs a display name (options.name)');
    this.url = url;
    this.options = {
      ...DEFAULTS,
      ...options,
      backoff: { ...DEFAULTS.backoff, ...options.backoff },
      retry: { ...DEFAULTS.retry, ...options.retry },
    };
    this.name = this.options.name;
    this.codec = codecFor(this.options.subprotocol);
    this.protocol = this.options.protocol;
    /** table id -> TableMirror */
    this.tables = new Map();
    /** Latest lobby list (after subscribeTables). */
    this.lobby = [];
    /** The last hello reply: {server, v, schema, session, resumed}. */
    this.server = null;
    /** False when the server's schema fingerprint differs from the loaded protocol's. */
    this.schemaMatches = null;
    this.state = 'idle';
    this.reconnects = 0;
    /** The form `legal` asks in: the cheapest this socket's hub has taken (LEGAL_FORMS). */
    this.legalForm = LEGAL_FORMS[0];
    this._ws = null;
    this._ids = 1;
    this._pending = new Map();
    this._listeners = new Map();
    this._inbox = Promise.resolve();
    this._closedByUser = false;
    this._lobbySubscribed = false;
    this._reconnectTimer = null;
    this._attempt = 0;
  }

  /** Create and connect; resolves with the client once hello succeeded. */
  static async connect(url, options) {
    const client = new Client(url, options);
    await client.connect();
    return client;
  }

  // -- events ----------------------------------------------------------------------------

  on(type, fn) {
    if (!this._listeners.has(type)) this._listeners.set(type, new Set());
    this._listeners.get(type).add(fn);
    return () => this._listeners.get(type)?.delete(fn);
  }

  _emit(type, detail) {
    for (const fn of [...(this._listeners.get(type) ?? [])]) {
      try {
        fn(detail);
      } catch (err) {
        if (type !== 'error') this._emit('error', err);
      }
    }
  }

  _setState(state) {
    if (this.state === state) return;
    this.state = state;
    this._emit('state', { state });
  }

  // -- connecting ------------------------------------------------------------------------

  /** Open the socket and say hello; resolves with the hello reply. */
  async connect() {
    this._closedByUser = false;
    clearTimeout(this._reconnectTimer);
    return this._open(false);
  }

  /** Close for good (no reconnect); pending requests fail with ConnectionError. */
  close(code = 1000, reason = 'bye') {
    this._closedByUser = true;
    clearTimeout(this._reconnectTimer);
    const ws = this._ws;
    if (ws && ws.readyState <= 1) {
      ws.close(code, reason);
    } else {
      this._setState('closed');
    }
    return new Promise((resolve) => {
      if (!ws || ws.readyState === 3) resolve();
      else ws.addEventListener('close', () => resolve(), { once: true });
    });
  }

  /**
   * Go on at another address -- e.g. this hub's /ws naming a room (protocol/README.md
   * "Connecting": behind a balancer, a room stays on one hub).  The socket is replaced
   * and every table resumed, as after a dropped connection; requests still waiting for
   * a reply fail with ConnectionError.  Resolves with the new hello reply; if the new
   * address cannot be reached, the client keeps retrying it as after a drop.
   */
  async moveTo(url) {
    this.url = url;
    clearTimeout(this._reconnectTimer); // a reconnect under way goes to the new address now
    const old = this._ws;
    this._ws = null; // its close is not a drop: _onClose ignores it
    this._failPending('the connection moved to another address');
    if (old && old.readyState <= 1) {
      // Closed before the new one says hello, so that the hub has let go of the old
      // socket (as far as the close handshake tells) before its seats are resumed.
      const closed = new Promise((resolve) => old.addEventListener('close', resolve, { once: true }));
      old.close(1000, 'moving');
      await closed;
    }
    try {
      return await this._open(true);
    } catch (err) {
      if (!this._closedByUser) this._scheduleReconnect();
      throw err;
    }
  }

  /** Drop the socket as a network failure would (the client then reconnects). For tests. */
  dropConnection() {
    this._ws?.close(4999, 'dropped by client');
  }

  _dial() {
    const { WebSocket: WS, subprotocol } = this.options;
    if (!WS) throw new Error('no WebSocket implementation (pass options.WebSocket, e.g. the ws package)');
    return new Promise((resolve, reject) => {
      const ws = new WS(this.url, [subprotocol]);
      ws.binaryType = 'arraybuffer';
      const fail = (event) => {
        cleanup();
        reject(new ConnectionError(`cannot connect to ${this.url}${event?.code ? ` (close ${event.code})` : ''}`));
      };
      const opened = () => {
        cleanup();
        if (ws.protocol !== subprotocol) {
          ws.close(1002, 'subprotocol not negotiated');
          reject(new ConnectionError(`server did not accept subprotocol ${subprotocol}`));
          return;
        }
        resolve(ws);
      };
      const cleanup = () => {
        ws.removeEventListener('open', opened);
        ws.removeEventListener('error', fail);
        ws.removeEventListener('close', fail);
      };
      ws.addEventListener('open', opened);
      ws.addEventListener('error', fail);
      ws.addEventListener('close', fail);
    });
  }

  async _open(resuming) {
    this._setState(resuming ? 'reconnecting' : 'connecting');
    const ws = await this._dial();
    this._ws = ws;
    this.legalForm = LEGAL_FORMS[0]; // a new socket may reach another (newer) hub
    ws.addEventListener('message', (event) => this._onFrame(event.data));
    ws.addEventListener('close', (event) => this._onClose(ws, event));
    const hello = { v: PROTOCOL_VERSION, name: this.name };
    if (this.options.caps.length) hello.caps = this.options.caps;
    const entries = [...this.tables.values()].map((m) => m.resumeEntry()).filter(Boolean);
    if (resuming && entries.length) hello.resume = entries.slice(0, MAX_RESUME);
    let reply;
    try {
      reply = await this.request('hello', hello);
    } catch (err) {
      ws.close(1000, 'hello failed');
      throw err;
    }
    this.server = reply;
    if (this.protocol) this.schemaMatches = reply.schema === this.protocol.fingerprint;
    for (const item of reply.resumed ?? []) {
      if (item.ok) continue;
      const entry = entries.find((e) => e.table === item.table);
      if (item.retry_ms != null && entry) {
        // refused for now (the store away, say): the seat back by its token (or the
        // table watched again) after retry_ms, sent again as any request asked to wait
        await new Promise((resolve) => setTimeout(resolve, item.retry_ms));
        await this._rewatch(entry);
      } else {
        this._resumeFailed(item.table, item.code);
      }
    }
    if (resuming) {
      for (const entry of entries.slice(MAX_RESUME)) await this._rewatch(entry);
      if (this._lobbySubscribed) await this.subscribeTables();
    }
    this._attempt = 0;
    if (resuming) this.reconnects += 1;
    this._setState('open');
    this._emit('open', reply);
    return reply;
  }

  async _rewatch(entry) {
    try {
      if (entry.token) await this.join(entry.table, { token: entry.token, seat: entry.seat });
      else await this.spectate(entry.table);
    } catch (err) {
      this._resumeFailed(entry.table, err.code ?? 'disconnected');
    }
  }

  _resumeFailed(table, code) {
    const mirror = this.tables.get(table);
    if (mirror) {
      mirror.role = null;
      mirror.resyncPending = null;
    }
    this._emit('resume_failed', { table, code });
  }

  _onClose(ws, event) {
    if (ws !== this._ws) return;
    this._ws = null;
    // Only an established connection reconnects here; a failed (re)connect attempt is
    // retried by _scheduleReconnect's own catch, and a failed first connect() rejects.
    // 4001: another connection took our seat; reconnecting would take it back from it.
    const willReconnect =
      !this._closedByUser && this.options.reconnect && this.state === 'open' && event.code !== 4001;
    this._failPending(`connection closed (${event.code} ${event.reason || ''})`.trim());
    this._emit('close', { code: event.code, reason: event.reason, willReconnect });
    if (willReconnect) this._scheduleReconnect();
    else if (this.state !== 'reconnecting') this._setState('closed');
  }

  _failPending(reason) {
    for (const [id, pending] of this._pending) {
      clearTimeout(pending.timer);
      pending.reject(new ConnectionError(reason));
      this._pending.delete(id);
    }
    for (const mirror of this.tables.values()) mirror.resyncPending = null;
  }

  _scheduleReconnect() {
    if (this._attempt >= this.options.maxAttempts) {
      this._setState('closed');
      return;
    }
    const { initialMs, maxMs, factor } = this.options.backoff;
    const base = Math.min(maxMs, initialMs * factor ** this._attempt);
    const delay = base / 2 + Math.random() * (base / 2);
    this._attempt += 1;
    this._setState('reconnecting');
    this._emit('retry', { attempt: this._attempt, delayMs: Math.round(delay) });
    this._reconnectTimer = setTimeout(async () => {
      if (this._closedByUser) return;
      try {
        await this._open(true);
      } catch {
        this._ws?.close(1000, 'resume failed');
        this._ws = null;
        if (!this._closedByUser) this._scheduleReconnect();
      }
    }, delay);
  }

  // -- requests --------------------------------------------------------------------------

  /**
   * Send a request of `type` with `fields`; resolves with the `ok` reply, rejects with
   * ServerError (an `error` reply), ProtocolError (invalid before sending) or ConnectionError.
   */
  request(type, fields = {}) {
    const ws = this._ws;
    if (!ws || ws.readyState !== 1) {
      return Promise.reject(new ConnectionError(`not connected (${this.state})`));
    }
    const id = this._ids++;
    const msg = { t: type, id, ...stripUndefined(fields) };
    try {
      this.protocol?.validate(msg);
    } catch (err) {
      return Promise.reject(err);
    }
    const frame = this.codec.encode(msg);
    const limit = this.protocol?.limits?.max_frame_bytes;
    if (limit && (typeof frame === 'string' ? new TextEncoder().encode(frame).length : frame.length) > limit) {
      return Promise.reject(new ServerError('bad_message', `message larger than ${limit} bytes`, msg));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        reject(new ConnectionError(`no reply to ${type} within ${this.options.requestTimeoutMs} ms`, 'timeout'));
      }, this.options.requestTimeoutMs);
      this._pending.set(id, { resolve, reject, timer, msg });
      ws.send(frame);
    });
  }

  /**
   * `request`, sent again with the same fields (its idempotency key too) while the
   * server answers an error carrying `retry_ms`; a `waiting` event says so each time.
   */
  async requestWithRetry(type, fields = {}) {
    const { tries, maxMs } = this.options.retry;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.request(type, fields);
      } catch (err) {
        if (!(err instanceof ServerError) || err.retryMs === undefined || attempt >= tries) throw err;
        const delayMs = Math.round(Math.min(maxMs, err.retryMs * 2 ** (attempt - 1) * (1 + Math.random() / 2)));
        const message = waitingWords(type, err.code, delayMs, attempt, tries);
        this._emit('waiting', { type, code: err.code, attempt, delayMs, message });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  // One helper per client-to-server message of protocol v1 (see protocol/v1/index.json).

  ping() {
    return this.request('ping');
  }

  /** [{id, name, min_players, max_players, options, help}] */
  async listGames() {
    return (await this.request('list_games')).games;
  }

  /** Table summaries, optionally of one game. */
  async listTables(game) {
    return (await this.request('list_tables', { game })).tables;
  }

  /** Live lobby: the current list now, then `tables` events whenever it changes. */
  async subscribeTables() {
    const reply = await this.request('subscribe_tables');
    this._lobbySubscribed = true;
    this.lobby = reply.tables;
    this._emit('tables', this.lobby);
    return reply.tables;
  }

  async unsubscribeTables() {
    this._lobbySubscribed = false;
    await this.request('subscribe_tables', { unsubscribe: true });
  }

  /** Create a table; resolves with its id. `options` may hold turn_seconds and seed. */
  async createTable(game, seats, options = {}, name) {
    const fields = { game, seats, options, name, key: newKey() };
    return (await this.requestWithRetry('create_table', fields)).table;
  }

  /** Take a seat (a given one, the first free one, or yours back with `token`). */
  async join(table, { seat, token } = {}) {
    const mirror = this._mirror(table);
    // A token is its own retry guarantee; a fresh seat needs a key to be retried safely.
    const key = token === undefined ? newKey() : undefined;
    const reply = await this.requestWithRetry('join', { table, seat, token, key });
    mirror.role = Role.PLAYER;
    mirror.seat = reply.seat;
    mirror.token = reply.token;
    return { seat: reply.seat, token: reply.token };
  }

  /** Seat a server bot; resolves with its seat. */
  async addBot(table, { seat, level } = {}) {
    return (await this.request('add_bot', { table, seat, level })).seat;
  }

  /** Watch read-only; a snapshot follows. Resolves with the current version. */
  async spectate(table) {
    const mirror = this._mirror(table);
    const reply = await this.request('spectate', { table });
    mirror.role = Role.SPECTATOR;
    mirror.seat = null;
    mirror.token = null;
    return reply.version;
  }

  /**
   * Play an action; resolves with the table version after it.  An action that does not
   * fit its game's schema is refused here (ProtocolError `bad_action`) as the hub would.
   */
  async act(table, action) {
    const mirror = this.tables.get(table);
    const game = mirror?.view?.game;
    if (game) this.protocol?.validateAction(game, action);
    const version = mirror && mirror.version >= 0 ? mirror.version : undefined;
    return (await this.requestWithRetry('act', { table, action, version, key: newKey() })).version;
  }

  /**
   * The actions legal for your seat now: {actions, version} -- asked in the layered grid
   * form, the cheapest (protocol/README.md "Layered grid legal"), and expanded from
   * whichever form the game answers in: `grids` (layered or not), `groups` ("Compact
   * legal") or `actions`.  A hub older than the layered form refuses the ask
   * (`bad_message`): it is then asked again in the next cheaper form, down to the plain
   * ask without `form` (LEGAL_FORMS), and the form it took is kept in `legalForm` for
   * this connection's later asks.  Any other error, and `bad_message` to the plain ask,
   * is thrown.
   */
  async legal(table) {
    const ws = this._ws;
    for (let form = this.legalForm; ; form = LEGAL_FORMS[LEGAL_FORMS.indexOf(form) + 1]) {
      let reply;
      try {
        reply = await this.requestWithRetry('legal', { table, form: form === 'plain' ? undefined : form });
      } catch (err) {
        if (err instanceof ServerError && err.code === 'bad_message' && form !== 'plain') continue;
        throw err;
      }
      if (this._ws === ws) this.legalForm = form; // kept only while the socket asked is ours
      return { actions: listedActions(reply), version: reply.version };
    }
  }

  /**
   * The staged form of `legal` (protocol/README.md "Staged legal"): the choices for the
   * next field of `partial`, an action with the fields chosen so far ({} for none):
   * {field, choices: [{value, complete, more}], complete, version}.
   */
  async legalStep(table, partial) {
    const reply = await this.requestWithRetry('legal', { table, partial });
    return { field: reply.field, choices: reply.choices, complete: reply.complete, version: reply.version };
  }

  /** Ask for what was missed since `version` (patches), or a snapshot without one. */
  resync(table, version) {
    return this.request('resync', { table, version: version >= 0 ? version : undefined });
  }

  /** Stop receiving a table's updates (a seat is kept: its token still works). */
  async leave(table) {
    await this.request('leave', { table });
    const mirror = this.tables.get(table);
    if (mirror) mirror.role = null;
    this.tables.delete(table);
  }

  /** A finished table's game record (protocol/README.md "Game records"); a busy
   * server's `overloaded` is waited out (sent again after its `retry_ms`), as for `replay`. */
  async record(table) {
    return (await this.requestWithRetry('record', { table })).record;
  }

  /**
   * One page of a table's replay (protocol/README.md "Replays"): `seat`'s views (null:
   * the spectators'; `allSeeing`: the whole game, once it is over) from version `from`
   * -- {start: {version, view, hash, round}, moves, newest, round_name, ...}.
   */
  replay(table, { seat = null, from = 0, allSeeing = false } = {}) {
    return this.requestWithRetry('replay', allSeeing ? { table, all_seeing: true, from } : { table, seat, from });
  }

  // -- waiting ---------------------------------------------------------------------------

  /** Resolves with the mirror once it has a view satisfying `predicate`. */
  waitFor(table, predicate = () => true, timeoutMs = 15000) {
    const ready = () => {
      const mirror = this.tables.get(table);
      return mirror && mirror.version >= 0 && predicate(mirror) ? mirror : null;
    };
    const now = ready();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const offs = [];
      const done = (fn, value) => {
        clearTimeout(timer);
        offs.forEach((off) => off());
        fn(value);
      };
      const timer = setTimeout(
        () => done(reject, new ConnectionError(`timed out waiting for table ${table}`, 'timeout')),
        timeoutMs,
      );
      offs.push(
        this.on('view', ({ table: t }) => {
          const mirror = t === table && ready();
          if (mirror) done(resolve, mirror);
        }),
      );
    });
  }

  /** Resolves with the next `type` event whose detail satisfies `predicate`. */
  next(type, predicate = () => true, timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new ConnectionError(`timed out waiting for ${type}`, 'timeout'));
      }, timeoutMs);
      const off = this.on(type, (detail) => {
        if (!predicate(detail)) return;
        clearTimeout(timer);
        off();
        resolve(detail);
      });
    });
  }

  // -- inbound ---------------------------------------------------------------------------

  _mirror(table) {
    let mirror = this.tables.get(table);
    if (!mirror) {
      mirror = new TableMirror(table);
      this.tables.set(table, mirror);
    }
    return mirror;
  }

  _onFrame(data) {
    let msg;
    try {
      msg = this.codec.decode(data);
    } catch (err) {
      this._emit('error', err);
      return;
    }
    // A batch is its messages, in order (never nested).
    const messages = msg?.t === 'batch' && Array.isArray(msg.m) ? msg.m.filter((m) => m?.t !== 'batch') : [msg];
    for (const item of messages) {
      if (this.options.inspect && this.options.inspect(item) === false) continue;
      this._inbox = this._inbox
        .then(() => this._dispatch(item))
        .catch((err) => this._emit('error', err));
    }
  }

  async _dispatch(msg) {
    switch (msg.t) {
      case 'ok':
      case 'error':
        this._settle(msg);
        break;
      case 'snapshot':
        await this._onSnapshot(msg);
        break;
      case 'patch':
        await this._onPatch(msg);
        break;
      case 'event': {
        const mirror = this._mirror(msg.table);
        mirror.events.push(...msg.events.map((e) => ({ ...e, version: msg.version })));
        if (mirror.events.length > MAX_EVENTS) mirror.events.splice(0, mirror.events.length - MAX_EVENTS);
        this._emit('event', { table: msg.table, version: msg.version, events: msg.events });
        break;
      }
      case 'presence': {
        const mirror = this._mirror(msg.table);
        mirror.presence = { seats: msg.seats, spectators: msg.spectators };
        this._emit('presence', { table: msg.table, mirror, presence: mirror.presence });
        break;
      }
      case 'tables':
        this.lobby = msg.tables;
        this._emit('tables', msg.tables);
        break;
      case 'table_closed': {
        const mirror = this.tables.get(msg.table);
        if (mirror) mirror.closed = msg.reason ?? 'closed';
        this._emit('table_closed', { table: msg.table, reason: msg.reason });
        break;
      }
      default:
        break; // newer servers may add pushes; ignore what we do not know
    }
    this._emit('message', msg);
  }

  _settle(msg) {
    const pending = this._pending.get(msg.id);
    if (!pending) {
      if (msg.t === 'error') this._emit('error', new ServerError(msg.code, msg.message));
      return;
    }
    this._pending.delete(msg.id);
    clearTimeout(pending.timer);
    if (msg.t === 'ok') pending.resolve(msg);
    else pending.reject(new ServerError(msg.code, msg.message, pending.msg, msg.retry_ms));
  }

  async _onSnapshot(msg) {
    const mirror = this._mirror(msg.table);
    const got = await viewHash(msg.view);
    mirror.view = msg.view;
    mirror.version = msg.version;
    mirror.hash = msg.hash;
    mirror.snapshots += 1;
    mirror.resyncPending = null;
    mirror.verified = got === msg.hash;
    if (!mirror.verified) {
      // The snapshot is the server's truth; we just cannot check hashes for this table.
      mirror.mismatches += 1;
      this._emit('mismatch', { table: msg.table, expected: msg.hash, got });
    }
    this._emit('view', { table: msg.table, mirror, kind: 'snapshot' });
  }

  async _onPatch(msg) {
    const mirror = this._mirror(msg.table);
    if (msg.from !== mirror.version) {
      if (msg.to > mirror.version) this._requestResync(mirror, 'gap');
      return; // an old patch (already covered) or a gap
    }
    let view;
    try {
      view = applyPatch(mirror.view, msg.ops);
    } catch (err) {
      this._requestResync(mirror, `patch does not apply: ${err.message}`);
      return;
    }
    if (mirror.verified) {
      const got = await viewHash(view);
      if (got !== msg.hash) {
        mirror.mismatches += 1;
        this._emit('mismatch', { table: msg.table, expected: msg.hash, got });
        this._requestResync(mirror, 'hash mismatch');
        return;
      }
    }
    mirror.view = view;
    mirror.version = msg.to;
    mirror.hash = msg.hash;
    mirror.patches += 1;
    mirror.resyncPending = null;
    this._emit('view', { table: msg.table, mirror, kind: 'patch' });
  }

  /** Ask for a catch-up patch (gap) or a fresh snapshot (anything else), once at a time. */
  _requestResync(mirror, reason) {
    const pending = mirror.resyncPending;
    // One outstanding resync at a time -- unless a catch-up patch (asked for a gap)
    // turned out wrong: then escalate to a snapshot at once.
    const escalate = pending?.reason === 'gap' && reason !== 'gap';
    if (pending && !escalate && Date.now() - pending.since < this.options.resyncRetryMs) return;
    mirror.resyncs += 1;
    mirror.resyncPending = { since: Date.now(), reason };
    this._emit('resync', { table: mirror.table, reason });
    const version = reason === 'gap' ? mirror.version : undefined;
    // Not awaited: the reply is handled by this same inbound chain.
    this.resync(mirror.table, version).catch((err) => {
      mirror.resyncPending = null;
      this._emit('error', err);
    });
  }
}

function stripUndefined(fields) {
  const out = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}
