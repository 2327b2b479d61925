// Choosing one action out of many in a few small decisions.
//
// `legal` lists complete actions (Termite Towers can offer thousands).  Instead of one
// button per action, the player decides one field at a time: the first field (in the
// game's order) on which the remaining actions differ is asked next, with one button
// per distinct value; the answer narrows the list, until one action is left.  All the
// grouping lives here, so a client can later ask the server step by step instead.

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The next decision for `actions` (already narrowed by the earlier answers):
 * {key, options: [{value, actions}]}, or null when they all agree on every field
 * (one action left).  Keys are tried in `order`, then any other field by name.
 */
export function nextStep(actions, order = []) {
  if (actions.length <= 1) return null;
  const keys = [...new Set(actions.flatMap((a) => Object.keys(a)))];
  keys.sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  for (const key of keys) {
    const options = [];
    for (const action of actions) {
      const value = action[key];
      const group = options.find((o) => same(o.value, value));
      if (group) group.actions.push(action);
      else options.push({ value, actions: [action] });
    }
    if (options.length > 1) return { key, options };
  }
  return null;
}

function rank(order, key) {
  const i = order.indexOf(key);
  return i < 0 ? order.length : i;
}
