// A statement Verdict sent, as a template its baselines replay: every bound parameter is traced back to
// the input field it came from, so a baseline sends Verdict's very statement with its own inputs (the
// hand-written driver baseline) or with SQL expressions in place of the parameters (pgbench). Nothing is
// written out by hand, so a statement that changes (a new column, a new parameter) changes the baselines
// with it; a parameter the bench cannot trace fails the bench with a message naming it.

/** `a` and `b` are the same bound value (instants by their time). */
const same = (a, b) => a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());

const describe = (value) =>
  value instanceof Date
    ? `the instant ${value.toISOString()}`
    : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);

/**
 * The templates of the statements `sent` (`[sql, parameters]` pairs, one call's, in order) by a call made
 * with `input`; `fields` names the input's fields (`name → input → value`, values distinct for that input).
 * A bound `null` is kept as a constant; any other parameter must equal exactly one field, else this throws.
 */
export function statementTemplates(what, sent, input, fields) {
  return sent.map(([sql, parameters = []], statement) => ({
    sql,
    slots: parameters.map((value, index) => {
      if (value === null) return { constant: null };
      const matches = Object.keys(fields).filter((name) => same(value, fields[name](input)));
      if (matches.length !== 1)
        throw new Error(
          `${what}: parameter ${index + 1} of Verdict's statement ${statement + 1} (${describe(value)}) ` +
            (matches.length === 0
              ? `is none of the bench's inputs (${Object.keys(fields).join(', ')})`
              : `is ambiguous (${matches.join(', ')})`) +
            `: the store's statement changed (a new column or parameter?); teach the bench what it binds.\n${sql}`,
        );
      return { field: matches[0] };
    }),
  }));
}

/** The parameters of `template` for another call's `input`. */
export function parametersOf(template, input, fields) {
  return template.slots.map((slot) => ('field' in slot ? fields[slot.field](input) : slot.constant));
}

/**
 * `template`'s SQL (PostgreSQL `$n` placeholders) with each parameter replaced by the SQL expression
 * `expressions[field]` (a bound `null` by `NULL`), for pgbench; throws for a field without an expression.
 */
export function inlinedSql(what, template, expressions) {
  return template.sql.replace(/\$(\d+)(?!\d)/g, (placeholder, number) => {
    const slot = template.slots[Number(number) - 1];
    if (slot === undefined) throw new Error(`${what}: ${placeholder} binds no parameter in\n${template.sql}`);
    if ('constant' in slot) return 'NULL';
    const expression = expressions[slot.field];
    if (expression === undefined)
      throw new Error(`${what}: the bench has no pgbench expression for ${slot.field} (${placeholder})`);
    return expression;
  });
}
