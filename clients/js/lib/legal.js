// A `legal` reply's actions, in either form (protocol/README.md "Compact legal").
//
// The plain reply lists `actions`; the compact one, from a game that has a compact form
// (9-tower), `groups`: each {fixed, fields, values} stands for the actions `fixed` plus
// fields[i] = values[k * fields.length + i], for k = 0, 1, ...

/** The `form` a `legal` request names to ask for the compact reply. */
export const COMPACT = 'compact';

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

/** The actions of a `legal` reply without `partial`, plain or compact. */
export function listedActions(reply) {
  return reply.groups ? expandGroups(reply.groups) : reply.actions;
}
