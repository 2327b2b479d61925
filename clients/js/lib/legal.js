// A `legal` reply's actions, in any of its forms (protocol/README.md "Compact legal",
// "Grid legal", "Layered grid legal").
//
// The plain reply lists `actions`.  The compact one, from a game that has a compact form,
// `groups`: each {fixed, fields, values} stands for the actions `fixed` plus
// fields[i] = values[k * fields.length + i], for k = 0, 1, ...  The grid one, from a game
// that has a grid form, `grids`: each {fixed, fields: [f0, f1], origin: [x0, y0], width,
// bits} stands for one action per bit i set in the hexadecimal number `bits`, in
// ascending i: `fixed` plus f0 = x0 + i mod width and f1 = y0 + floor(i / width).
// The layered one (9-tower, the wall duel) sends grids that may also have
//   - `layers` {field, values} with `height`: `bits` holds values.length layers of
//     width * height bits; bit i is in layer k = floor(i / (width * height)), its position
//     counted from j = i mod (width * height) as above, and its action has
//     layers.field = values[k];
//   - `each`, a non-empty list of maps: one action per bit *and* per entry, `fixed`, then
//     the entry's fields, then the position's (and the layer's); for each bit in
//     ascending i, the entries in their order.
// A grid without them reads as in the grid form, so a grid reply is a layered one too.
// A game without the form asked for answers with the next cheaper one it has (layered ->
// grid -> compact -> plain), so a reply is read as `grids` when it has them, else
// `groups`, else `actions`.

/** The `form` a `legal` request names to ask for the compact reply. */
export const COMPACT = 'compact';

/** The `form` a `legal` request names to ask for the grid reply (kept for hubs without the layered form). */
export const GRID = 'grid';

/** The `form` a `legal` request names to ask for the layered grid reply. */
export const LAYERED = 'layered';

/** Every action the groups of a compact reply stand for, group after group. */
export function expandGroups(groups) {
  const actions = [];
  for (const { fixed, fields, values } of groups) {
    const width = fields.length;
    for (let at = 0; at < values.length; at += width) {
      const action = { ...fixed };
      for (let i = 0; i < width; i++) action[fields[i]] = values[at + i];
      actions.push(action);
    }
  }
  return actions;
}

/** The value of one lowercase hexadecimal digit (its character code), or -1. */
function hexDigit(code) {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  return -1;
}

/** Whether a value is a plain map (what JSON and msgpack decode a map to). */
function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A value as an error message names it, in words. */
function what(value) {
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (value === null) return 'null';
  if (typeof value !== 'object') return JSON.stringify(value);
  return isPlainObject(value) ? 'a map' : `a ${value.constructor?.name ?? 'class'} object`;
}

/** The end of an error message about a value that is not what it must be. */
function not(value) {
  return value === undefined ? ', and it is missing' : `, not ${what(value)}`;
}

/**
 * How a grid's bits map to actions, checked: the layer (and its size in bits), if any,
 * and the `each` entries (one empty entry for a grid without `each`).
 */
function gridShape({ width, bits, layers, height, each }) {
  if (!Number.isInteger(width) || width < 1) throw new RangeError(`a legal grid's width must be a positive whole number${not(width)}`);
  if (typeof bits !== 'string' || bits.length === 0) throw new RangeError('a legal grid has no bits');
  let layer = null;
  if (layers !== undefined) {
    if (!isPlainObject(layers)) throw new RangeError(`a legal grid's layers must be a map of a field and its values${not(layers)}`);
    if (typeof layers.field !== 'string') throw new RangeError(`a legal grid's layers must name their field${not(layers.field)}`);
    if (!Array.isArray(layers.values)) throw new RangeError(`a legal grid's layer values must be a list${not(layers.values)}`);
    if (!Number.isInteger(height) || height < 1) throw new RangeError(`a layered legal grid's height must be a positive whole number${not(height)}`);
    layer = { field: layers.field, values: layers.values, size: width * height };
  }
  let entries = [{}];
  if (each !== undefined) {
    if (!Array.isArray(each) || each.length === 0) throw new RangeError(`a legal grid's "each" must be a non-empty list of maps${not(each)}`);
    const bad = each.findIndex((entry) => !isPlainObject(entry));
    if (bad >= 0) throw new RangeError(`a legal grid's "each" must be a non-empty list of maps, but entry ${bad + 1} is ${what(each[bad])}`);
    entries = each;
  }
  return { layer, entries };
}

/**
 * Every action the grids of a grid or layered reply stand for, grid after grid, each
 * grid's in ascending bit order (and for each bit, its `each` entries in order).  `bits`
 * may be hundreds of digits long: it is read a digit at a time from its end (bits 0-3 in
 * the last digit), never as one Number.
 */
export function expandGrids(grids) {
  const actions = [];
  for (const grid of grids) {
    const { fixed, fields, origin, width, bits } = grid;
    const { layer, entries } = gridShape(grid);
    const [f0, f1] = fields;
    const [x0, y0] = origin;
    for (let at = bits.length - 1, base = 0; at >= 0; at--, base += 4) {
      const digit = hexDigit(bits.charCodeAt(at));
      if (digit < 0) throw new RangeError(`a legal grid's bits are not lowercase hexadecimal: ${JSON.stringify(bits[at])} in them`);
      for (let b = 0; b < 4; b++) {
        if (!(digit & (1 << b))) continue;
        let j = base + b;
        let place;
        if (layer === null) {
          place = { [f0]: x0 + (j % width), [f1]: y0 + Math.floor(j / width) };
        } else {
          const k = Math.floor(j / layer.size);
          if (k >= layer.values.length) {
            throw new RangeError(`a legal grid's bits reach past its ${layer.values.length} layer${layer.values.length === 1 ? '' : 's'} of ${width} by ${grid.height}`);
          }
          j -= k * layer.size;
          place = { [f0]: x0 + (j % width), [f1]: y0 + Math.floor(j / width), [layer.field]: layer.values[k] };
        }
        for (const entry of entries) actions.push({ ...fixed, ...entry, ...place });
      }
    }
  }
  return actions;
}

/** The actions of a `legal` reply without `partial`, in whichever form it came. */
export function listedActions(reply) {
  if (reply.grids) return expandGrids(reply.grids);
  if (reply.groups) return expandGroups(reply.groups);
  return reply.actions;
}
