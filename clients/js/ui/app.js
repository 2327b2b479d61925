// The browser UI: one Client connection, a hash router (#/ lobby, #/table/<id> a table,
// #/replay/<id> or /?replay=<id> a game's replay),
// the player's name and seat tokens kept in localStorage so a reload (or a dropped
// connection) gives the seats back.

import { Client, fromUrl, loadProtocol } from '../lib/index.js';
import { h, replace } from './dom.js';
import { mountLobby } from './lobby.js';
import { mountReplay } from './replay.js';
import { mountTable } from './table.js';

const STORAGE = { name: 'tablehub.name', seats: 'tablehub.seats' };

/** Seat tokens by table id: {table: {seat, token}}. */
export const seats = {
  all() {
    try {
      return JSON.parse(localStorage.getItem(STORAGE.seats) ?? '{}');
    } catch {
      return {};
    }
  },
  get(table) {
    return this.all()[table] ?? null;
  },
  set(table, seat, token) {
    const all = this.all();
    all[table] = { seat, token };
    localStorage.setItem(STORAGE.seats, JSON.stringify(all));
  },
  forget(table) {
    const all = this.all();
    delete all[table];
    localStorage.setItem(STORAGE.seats, JSON.stringify(all));
  },
};

const app = {
  client: null,
  protocol: null,
  games: [],
  seats,
  page: null,
  /** Short-lived message at the bottom of the screen. */
  toast(text, kind = 'info') {
    const area = document.getElementById('toasts');
    const el = h('div', { class: ['toast', kind], role: kind === 'error' ? 'alert' : 'status' }, text);
    area.append(el);
    setTimeout(() => el.remove(), kind === 'error' ? 6000 : 3500);
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  gameInfo(id) {
    return this.games.find((g) => g.id === id) ?? { id, name: id };
  },
  /**
   * Before this page creates a table on a hub that shares its tables with other hubs
   * (hello `rooms`): unless the page is in a room already, it takes one of its own --
   * the address gains ?room=, the socket moves there -- so that everyone who follows
   * its links meets on the table's hub (protocol/README.md "Connecting").
   */
  async enterRoom() {
    if (!this.client.server?.rooms || pageRoom()) return;
    const address = new URL(location.href);
    address.searchParams.set('room', newRoom());
    history.replaceState(null, '', address.href);
    try {
      await this.client.moveTo(wsUrl());
    } catch {
      throw new Error('The connection to the server dropped while setting up your table. It is reconnecting: try again in a moment.');
    }
  },
};

function pageRoom() {
  return new URLSearchParams(location.search).get('room');
}

/** Ten random lower-case letters and digits. */
function newRoom() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...crypto.getRandomValues(new Uint8Array(10))].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The hub's socket; a page opened with ?room=KEY names that room (protocol/README.md:
 * behind a balancer, everyone in a room meets on one hub). */
function wsUrl() {
  const url = new URL('/ws', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const room = pageRoom();
  if (room) url.searchParams.set('room', room);
  return url.href;
}

function randomName() {
  return `guest-${Math.floor(1000 + Math.random() * 9000)}`;
}

function setConnection(state) {
  const badge = document.getElementById('conn');
  badge.dataset.state = state;
  badge.textContent = { open: 'online', connecting: 'connecting…', reconnecting: 'reconnecting…', closed: 'offline', idle: '…' }[state] ?? state;
}

async function connect(name) {
  const client = new Client(wsUrl(), { name, protocol: app.protocol });
  client.on('state', ({ state }) => setConnection(state));
  client.on('retry', ({ delayMs }) => {
    document.getElementById('conn').title = `next try in ${(delayMs / 1000).toFixed(1)} s`;
  });
  client.on('mismatch', ({ table }) => console.warn(`view hash mismatch on ${table}; resyncing`));
  client.on('error', (err) => console.warn('tablehub:', err));
  client.on('table_closed', ({ table }) => seats.forget(table)); // its seat token is void
  await client.connect();
  if (client.schemaMatches === false) {
    app.toast('This page speaks a different protocol schema than the server; reload to update.', 'error');
  }
  app.client = client;
  app.games = await client.listGames();
  return client;
}

function route() {
  app.page?.destroy?.();
  app.page = null;
  const main = document.getElementById('main');
  const match = location.hash.match(/^#\/table\/([A-Za-z0-9_-]+)(\?watch)?$/);
  // a replay: #/replay/<id> inside the page, or a link to /?replay=<id> (no hash yet)
  const replay = location.hash.match(/^#\/replay\/([A-Za-z0-9_-]+)$/)?.[1] ?? (location.hash ? null : new URLSearchParams(location.search).get('replay'));
  if (match) app.page = mountTable(main, app, match[1], { watch: Boolean(match[2]) });
  else if (replay) app.page = mountReplay(main, app, replay);
  else app.page = mountLobby(main, app);
}

function askName(main) {
  return new Promise((resolve) => {
    const input = h('input', { id: 'name-input', name: 'name', maxlength: 40, required: true, value: randomName(), autocomplete: 'nickname' });
    const form = h(
      'form',
      {
        class: 'welcome card',
        on: {
          submit: (event) => {
            event.preventDefault();
            const name = input.value.trim();
            if (!name) return;
            localStorage.setItem(STORAGE.name, name);
            resolve(name);
          },
        },
      },
      h('h2', {}, 'Welcome to tablehub'),
      h('p', {}, 'Four board games, live in your browser: play with friends or bots, or watch any table.'),
      h('label', { for: 'name-input' }, 'Your name'),
      input,
      h('button', { class: 'primary', type: 'submit', id: 'name-go' }, 'Enter the lobby'),
    );
    replace(main, form);
    input.select();
  });
}

async function boot() {
  const main = document.getElementById('main');
  setConnection('idle');
  app.protocol = await loadProtocol(fromUrl('/protocol/v1/')).catch((err) => {
    console.warn('protocol files not available, requests are not validated client-side:', err);
    return null;
  });
  const name = localStorage.getItem(STORAGE.name) || (await askName(main));
  document.getElementById('who').textContent = name;
  try {
    await connect(name);
  } catch (err) {
    replace(main, h('div', { class: 'card error' }, h('h2', {}, 'Cannot reach the server'), h('p', {}, String(err.message)), h('button', { on: { click: () => location.reload() } }, 'Try again')));
    return;
  }
  window.addEventListener('hashchange', route);
  route();
}

document.getElementById('who')?.addEventListener('click', () => {
  const name = prompt('Your name (takes effect after reload)', localStorage.getItem(STORAGE.name) ?? '');
  if (name && name.trim()) {
    localStorage.setItem(STORAGE.name, name.trim().slice(0, 40));
    location.reload();
  }
});

window.tablehub = app; // for the console (and browser tests)
boot();
