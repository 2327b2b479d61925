// TableMirror: the client's copy of one table's view, kept current by snapshots and
// RFC 6902 patches whose result is checked against the server's view hash.

/** Why and what a mirror needs from the server. */
export const Role = Object.freeze({ PLAYER: 'player', SPECTATOR: 'spectator' });

export class TableMirror {
  constructor(table) {
    this.table = table;
    /** Version of `view`; -1 until the first snapshot. */
    this.version = -1;
    /** The table view: {table, game, status, seats, phase, to_act, turn, deadline, result, board}. */
    this.view = null;
    this.hash = '';
    /** Role.PLAYER (with seat and token) or Role.SPECTATOR; null when not watching. */
    this.role = null;
    this.seat = null;
    this.token = null;
    /** Last presence push: {seats: [{name, bot, connected}], spectators}. */
    this.presence = null;
    /** Recent game events, oldest first (bounded). */
    this.events = [];
    /** Counters for diagnostics and tests. */
    this.resyncs = 0;
    this.mismatches = 0;
    this.patches = 0;
    this.snapshots = 0;
    /** False after a snapshot whose hash we could not reproduce (then hashes are not trusted). */
    this.verified = true;
    /** {since, reason} while a resync request is outstanding. */
    this.resyncPending = null;
    /** Reason string once the server closed the table. */
    this.closed = null;
  }

  /** True when this connection holds a seat at the table. */
  get seated() {
    return this.role === Role.PLAYER && this.seat !== null;
  }

  /** What to put in hello.resume to get this table back after a reconnect (or null). */
  resumeEntry() {
    if (this.closed || this.role === null) return null;
    const entry = { table: this.table };
    if (this.role === Role.PLAYER && this.token) {
      entry.token = this.token;
      entry.seat = this.seat;
    }
    if (this.version >= 0) entry.version = this.version;
    return entry;
  }
}
