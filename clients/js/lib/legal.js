// A `legal` reply's actions, in any of its forms (protocol/README.md "Compact legal",
// "Grid legal").
//
// The plain reply lists `actions`.  The compact one, from a game that has a compact form,
// `groups`: each {fixed, fields, values} stands for the actions `fixed` plus
// fields[i] = values[k * fields.length + i], for k = 0, 1, ...  The grid one, from a game
// that has a grid form (9-tower), `grids`: each {fixed, fields: [f0, f1], origin: [x0, y0],
// width, bits} stands for one action per bit i set in the hexadecimal number `bits`, in
// ascending i: `fixed` plus f0 = x0 + i mod width and f1 = y0 + floor(i / width).
// A game without the form asked for answers with the next cheaper one it has, so a reply
// is read as `grids` when it has them, else `groups`, else `actions`.

/** The `form` a `legal` request names to ask for the compact reply. */
export const COMPACT = 'compact';

/** The `form` a `legal` request names to ask for the grid reply. */
export const GRID = 'grid';

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

/**
 * Every action the grids of a grid reply stand for, grid after grid, each grid's in
 * ascending bit order.  `bits` may be hundreds of digits long: it is read a digit at a
 * time from its end (bits 0-3 in the last digit), never as one Number.
 */
export function expandGrids(grids) {
  const actions = [];
  for (const { fixed, fields, origin, width, bits } of grids) {
    if (!Number.isInteger(width) || width < 1) throw new RangeError(`a legal grid's width must be a positive whole number, not ${width}`);
    if (typeof bits !== 'string' || bits.length === 0) throw new RangeError('a legal grid has no bits');
    const [f0, f1] = fields;
    const [x0, y0] = origin;
    for (let at = bits.length - 1, base = 0; at >= 0; at--, base += 4) {
      const digit = hexDigit(bits.charCodeAt(at));
      if (digit < 0) throw new RangeError(`a legal grid's bits are not lowercase hexadecimal: ${JSON.stringify(bits[at])} in them`);
      for (let b = 0; b < 4; b++) {
        if (!(digit & (1 << b))) continue;
        const i = base + b;
        actions.push({ ...fixed, [f0]: x0 + (i % width), [f1]: y0 + Math.floor(i / width) });
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
