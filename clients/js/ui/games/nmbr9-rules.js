// 9-tower placement rules, client side (a port of server/games/nmbr9/{shapes,rules}.py,
// docs/games/nmbr9.md), so the ghost tile can say legal/illegal, the level it would land on and
// why not -- in the server's own words -- without a round trip.  The server stays the
// authority; the node tests check this port against the server's legal list.

/** The ten digits as they read upright (rows top to bottom, '#' = square). */
export const GRIDS = {
  0: ['###', '#.#', '#.#', '###'],
  1: ['##.', '.#.', '.#.', '.#.'],
  2: ['.##', '.##', '##.', '###'],
  3: ['###', '..#', '.##', '###'],
  4: ['.##', '.#.', '###', '.##'],
  5: ['###', '###', '..#', '###'],
  6: ['##.', '#..', '###', '###'],
  7: ['###', '.#.', '##.', '#..'],
  8: ['.##', '.##', '##.', '##.'],
  9: ['###', '###', '##.', '##.'],
};

function normalised(cells) {
  const minX = Math.min(...cells.map(([x]) => x));
  const minY = Math.min(...cells.map(([, y]) => y));
  return cells.map(([x, y]) => [x - minX, y - minY]).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

function upright(digit) {
  const cells = [];
  GRIDS[digit].forEach((row, y) => [...row].forEach((ch, x) => ch === '#' && cells.push([x, y])));
  return normalised(cells);
}

/** ROTATIONS[digit][rot]: cells after `rot` quarter turns clockwise, min x = min y = 0. */
export const ROTATIONS = Object.fromEntries(
  Object.keys(GRIDS).map((d) => {
    const out = [upright(Number(d))];
    // With y pointing down, a quarter turn clockwise sends (x, y) to (-y, x).
    for (let i = 0; i < 3; i++) out.push(normalised(out[i].map(([x, y]) => [-y, x])));
    return [d, out];
  }),
);

export function shapeCells(digit, rot) {
  return ROTATIONS[digit][((rot % 4) + 4) % 4];
}

export function shapeSize(digit, rot) {
  const cells = shapeCells(digit, rot);
  return { w: Math.max(...cells.map(([x]) => x)) + 1, h: Math.max(...cells.map(([, y]) => y)) + 1 };
}

export function placedCells(digit, x, y, rot) {
  return shapeCells(digit, rot).map(([dx, dy]) => [x + dx, y + dy]);
}

/** docs/games/nmbr9.md "Score": digit x level. */
export const tileScore = (tile) => tile.digit * tile.level;

const key = (x, y) => `${x},${y}`;
const fmt = ([x, y]) => `(${x},${y})`;

/** Height map and owner map (index of the topmost tile) of a layout. */
function surface(tiles) {
  const height = new Map();
  const owner = new Map();
  tiles.forEach((tile, index) => {
    for (const [cx, cy] of tile.cells) {
      height.set(key(cx, cy), tile.level + 1);
      owner.set(key(cx, cy), index);
    }
  });
  return { height, owner };
}

/**
 * Where `digit` would land at (x, y, rot) on `tiles`: {ok: true, level} or
 * {ok: false, reason} with the server's wording (rules.check_placement).
 */
export function checkPlacement(tiles, digit, x, y, rot) {
  const cells = placedCells(digit, x, y, rot);
  if (tiles.length === 0) return { ok: true, level: 0 };
  const { height, owner } = surface(tiles);
  const heights = cells.map(([cx, cy]) => height.get(key(cx, cy)) ?? 0);
  const level = Math.max(...heights);
  const low = Math.min(...heights);
  if (low !== level) {
    const high = cells[heights.indexOf(level)];
    if (low === 0) {
      const hole = cells[heights.indexOf(0)];
      return {
        ok: false,
        reason:
          `square ${fmt(hole)} would overhang: nothing under it on level ${level - 1} ` +
          `(the square at ${fmt(high)} lifts the tile to level ${level})`,
      };
    }
    const lowCell = cells[heights.indexOf(low)];
    return {
      ok: false,
      reason:
        `tile would rest on uneven heights (level ${low - 1} at ${fmt(lowCell)}, ` +
        `level ${level - 1} at ${fmt(high)})`,
    };
  }
  if (level >= 1) {
    const supports = new Set(cells.map(([cx, cy]) => owner.get(key(cx, cy))));
    if (supports.size < 2) {
      const [index] = supports;
      return {
        ok: false,
        reason:
          `a level-${level} tile must rest on at least two different tiles ` +
          `(all squares are on the ${tiles[index].digit} placed in round ${index + 1})`,
      };
    }
  }
  const levelTaken = [...height.values()].some((hgt) => hgt > level);
  if (levelTaken) {
    const own = new Set(cells.map(([cx, cy]) => key(cx, cy)));
    const touches = cells.some(([cx, cy]) =>
      [
        [cx + 1, cy],
        [cx - 1, cy],
        [cx, cy + 1],
        [cx, cy - 1],
      ].some(([nx, ny]) => !own.has(key(nx, ny)) && (height.get(key(nx, ny)) ?? 0) > level),
    );
    if (!touches) {
      return {
        ok: false,
        reason:
          level === 0
            ? 'tile on level 0 must touch your layout along an edge (corners do not count)'
            : `tile on level ${level} must touch another level-${level} tile along an edge (corners do not count)`,
      };
    }
  }
  return { ok: true, level };
}
