import { subject as withSubjectType } from '@casl/ability';
import { isPlainObject } from '../shared/is-plain-object.js';

/** The property where CASL keeps a subject type set by its `subject()` helper. */
const SUBJECT_TYPE_FIELD = '__caslSubjectType__';

/**
 * Whether a `__caslSubjectType__` property was set by CASL's `subject()` helper: it defines the tag as
 * read-only, hidden and fixed. Data (JSON, `Object.assign`, spreads, ORM hydration) can only produce an
 * ordinary, enumerable property.
 */
function setBySubjectHelper(tag: PropertyDescriptor): boolean {
  return tag.enumerable === false && tag.writable === false && tag.configurable === false;
}

/**
 * The object CASL is asked about, with a subject type only trusted code chose. A type a resolver gave
 * the target with CASL's `subject()` is kept, on a plain object as on a class instance (the caller then
 * denies a target of another type). Otherwise a plain object is typed as `subjectType` (a tag its data
 * carries, perhaps copied from model input, is dropped — and so is a row that already carried the tag as
 * data when the resolver called `subject()`, since CASL then leaves it as it is: strip such a column, or
 * map the row to an entity class), and a class instance keeps the type of its
 * class: a tag or a `constructor` the instance's data carries is left out of a copy with the same prototype, so
 * it cannot name another type.
 *
 * @example
 * subjectOf('Order', Object.assign(new SupportTicket(), { __caslSubjectType__: 'Order' })); // still a SupportTicket
 * subjectOf('Order', subject('Customer', row)); // still a Customer: denied by the Order capability
 */
export function subjectOf(subjectType: string, target: object): object {
  const tag = Object.getOwnPropertyDescriptor(target, SUBJECT_TYPE_FIELD);
  // Set by subject(): trusted code chose the type; the caller denies it if it is another type.
  if (tag !== undefined && setBySubjectHelper(tag)) return target;
  if (isPlainObject(target)) {
    const { [SUBJECT_TYPE_FIELD]: _tag, ...plain } = target;
    return withSubjectType(subjectType, plain);
  }
  // CASL reads a class instance's type from `constructor`: an own one is data (hydrated JSON), never the class.
  if (tag === undefined && !Object.hasOwn(target, 'constructor')) return target;
  const { [SUBJECT_TYPE_FIELD]: _dataTag, constructor: _dataType, ...own } = Object.getOwnPropertyDescriptors(target);
  return Object.create(Object.getPrototypeOf(target) as object, own) as object;
}
