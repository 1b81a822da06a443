import { describe, expect, it } from '@jest/globals';
import { runInNewContext } from 'node:vm';
import { VerdictError } from '../errors/verdict.error.js';
import { compileStateModel } from './compile-state-model.js';
import type { StateModel } from './state-model.js';
import { StateModelError } from './state-model.error.js';
import { TrajectoryStepError } from './trajectory-step.error.js';
import type { Effect } from './effect.js';
import type { StateMachine, TrajectoryState } from './index.js';

/** The exfiltration model of the harness doc, order-sensitive through the guard on the upload rule. */
function exfiltrationModel(): Record<string, any> {
  return {
    initial: { records_read: false, external_uploads: 0 },
    transitions: [
      { when: { effect: 'read', resource: 'crm/customers/*' }, set: { records_read: true } },
      {
        when: { effect: 'upload', resource: 'exports/*', destination: 'external:*' },
        requires: [{ field: 'records_read', equals: true }],
        add: { external_uploads: 1 },
      },
    ],
    forbidden: [{ id: 'customer_data_uploaded_externally', all: [{ field: 'external_uploads', greater_than: 0 }] }],
  };
}

function problemsOf(model: unknown): readonly string[] {
  try {
    compileStateModel(model);
  } catch (error) {
    if (error instanceof StateModelError) return error.problems;
    throw error;
  }
  throw new Error('expected a StateModelError');
}

function fold(machine: StateMachine, effects: readonly Effect[]): TrajectoryState {
  return effects.reduce((state, effect) => machine.step(state, effect).state, machine.initial);
}

const read: Effect = { effect: 'read', resource: 'crm/customers/42' };
const externalUpload: Effect = {
  effect: 'upload',
  resource: 'exports/customers.csv',
  destination: 'external:files.example.net',
};

describe('compileStateModel', () => {
  describe('validation', () => {
    it('throws a StateModelError (a VerdictError with a stable code) that lists every problem', () => {
      const model = exfiltrationModel();
      model.transitions[0].when.resorce = 'crm/*';
      model.forbidden[0].all[0].field = 'typo';
      const error = (() => {
        try {
          compileStateModel(model);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(StateModelError);
      expect(error).toBeInstanceOf(VerdictError);
      expect((error as StateModelError).code).toBe('VERDICT_STATE_MODEL');
      expect((error as StateModelError).problems).toHaveLength(2);
      expect((error as StateModelError).message).toContain('transitions[0].when: unknown key');
    });

    it.each([
      ['the root', (m: any) => (m.predicates = []), "state model: unknown key 'predicates'"],
      ['a transition', (m: any) => (m.transitions[0].then = {}), "transitions[0]: unknown key 'then'"],
      ['a when clause', (m: any) => (m.transitions[1].when.host = 'x'), "transitions[1].when: unknown key 'host'"],
      ['a predicate', (m: any) => (m.forbidden[0].severity = 'high'), "forbidden[0]: unknown key 'severity'"],
      ['a condition', (m: any) => (m.forbidden[0].all[0].note = 'x'), "forbidden[0].all[0]: unknown key 'note'"],
      [
        'a guard condition',
        (m: any) => (m.transitions[1].requires[0].why = 'x'),
        "transitions[1].requires[0]: unknown key 'why'",
      ],
    ])('rejects unknown keys in %s', (_where, mutate, problem) => {
      const model = exfiltrationModel();
      mutate(model);
      expect(problemsOf(model)).toEqual([expect.stringContaining(problem)]);
    });

    it('rejects a model that is not an object, and names missing or empty sections', () => {
      expect(problemsOf(null)).toEqual(['state model: must be an object with initial, transitions and forbidden']);
      expect(problemsOf({ initial: {}, transitions: [] })).toEqual([
        'forbidden: required',
        'transitions: must be a non-empty list',
      ]);
    });

    it('rejects an empty forbidden list', () => {
      expect(problemsOf({ ...exfiltrationModel(), forbidden: [] })).toEqual(['forbidden: must be a non-empty list']);
    });

    it('rejects guard fields that nothing declares or writes', () => {
      const model = exfiltrationModel();
      model.transitions[1].requires[0].field = 'records_loaded';
      expect(problemsOf(model)).toEqual([
        "transitions[1].requires[0].field: 'records_loaded' is neither declared in initial nor written by any transition",
      ]);
    });

    it('rejects predicate fields that nothing declares or writes, however deeply nested', () => {
      const model = exfiltrationModel();
      model.forbidden[0] = { id: 'p', any: [{ not: { all: [{ field: 'uploads_external', greater_than: 0 }] } }] };
      expect(problemsOf(model)).toEqual([
        "forbidden[0].any[0].not.all[0].field: 'uploads_external' is neither declared in initial nor written by any transition",
      ]);
    });

    it('accepts a field that only a transition writes, and treats it as absent until written', () => {
      const model = exfiltrationModel();
      model.transitions.push({ when: { effect: 'send' }, add: { links_sent: 1 } });
      model.forbidden.push({ id: 'link_sent', all: [{ field: 'links_sent', greater_than: 0 }] });
      const machine = compileStateModel(model);
      expect(Object.hasOwn(machine.initial, 'links_sent')).toBe(false);
      expect(machine.firstViolation(machine.step(machine.initial, { effect: 'send' }).state)).toBe('link_sent');
    });

    it('rejects add on a field that is declared or set non-numeric', () => {
      const model = exfiltrationModel();
      model.initial.count = 'none';
      model.transitions.push(
        { when: { effect: 'x' }, add: { count: 1 } },
        { when: { effect: 'y' }, set: { total: true } },
        { when: { effect: 'z' }, add: { total: 2 } },
      );
      expect(problemsOf(model)).toEqual([
        'transitions[2].add.count: field is not numeric (initial.count is a string)',
        'transitions[4].add.total: field is not numeric (transitions[3].set.total is a boolean)',
      ]);
    });

    it.each([['1'], [true], [null], [[1]]])('rejects a non-numeric add amount (%j)', (amount) => {
      const model = exfiltrationModel();
      model.transitions[1].add.external_uploads = amount;
      expect(problemsOf(model)).toEqual(['transitions[1].add.external_uploads: add amount is not numeric']);
    });

    it('rejects a forbidden predicate that already holds in the initial state', () => {
      const model = exfiltrationModel();
      model.forbidden.push({ id: 'not_read', all: [{ field: 'records_read', equals: false }] });
      expect(problemsOf(model)).toEqual([
        "forbidden[1]: predicate 'not_read' already holds in the initial state (it could never be reported as reached)",
      ]);
    });

    it('rejects a negated predicate that already holds in the initial state', () => {
      const model = exfiltrationModel();
      model.forbidden[0] = { id: 'never_read', not: { field: 'records_read', equals: true } };
      expect(problemsOf(model)).toEqual([
        expect.stringContaining("forbidden[0]: predicate 'never_read' already holds"),
      ]);
    });

    it('rejects duplicate predicate ids', () => {
      const model = exfiltrationModel();
      model.forbidden.push({ id: 'customer_data_uploaded_externally', all: [{ field: 'records_read', equals: true }] });
      expect(problemsOf(model)).toEqual([
        "forbidden[1].id: duplicate predicate id 'customer_data_uploaded_externally' (first used at forbidden[0])",
      ]);
    });

    it.each([
      [
        'an initial value',
        (m: any) => (m.initial.external_uploads = Infinity),
        'initial.external_uploads: number is not finite',
      ],
      [
        'a set value',
        (m: any) => (m.transitions[0].set.records_read = NaN),
        'transitions[0].set.records_read: number is not finite',
      ],
      [
        'an add amount',
        (m: any) => (m.transitions[1].add.external_uploads = -Infinity),
        'transitions[1].add.external_uploads: number is not finite',
      ],
      [
        'a comparison bound',
        (m: any) => (m.forbidden[0].all[0].greater_than = Infinity),
        'forbidden[0].all[0].greater_than: number is not finite',
      ],
    ])('rejects a non-finite number in %s', (_where, mutate, problem) => {
      const model = exfiltrationModel();
      mutate(model);
      expect(problemsOf(model)).toEqual([problem]);
    });

    it('rejects comparisons that strict equality makes constant, and numeric or glob operators on fields of another type', () => {
      const model = exfiltrationModel();
      model.forbidden = [
        { id: 'a', all: [{ field: 'records_read', equals: 1 }] },
        { id: 'b', all: [{ field: 'records_read', not_equals: 'yes' }] },
        { id: 'c', all: [{ field: 'records_read', greater_than: 0 }] },
        { id: 'd', all: [{ field: 'external_uploads', matches: '1*' }] },
      ];
      expect(problemsOf(model)).toEqual([
        "forbidden[0].all[0].equals: field 'records_read' only holds boolean, never number; comparison is strict, so this condition never holds",
        "forbidden[1].all[0].not_equals: field 'records_read' only holds boolean, never string; comparison is strict, so this condition holds whenever the field is present",
        "forbidden[2].all[0].greater_than: field 'records_read' is not numeric (it holds boolean)",
        "forbidden[3].all[0].matches: field 'external_uploads' never holds a string (it holds number)",
      ]);
    });

    it('rejects conditions with no operator or two, groups with no kind or two, and empty groups', () => {
      const model = exfiltrationModel();
      model.forbidden = [
        { id: 'a', all: [{ field: 'records_read' }] },
        { id: 'b', all: [{ field: 'external_uploads', greater_than: 0, less_than: 9 }] },
        { id: 'c' },
        { id: 'd', all: [{ field: 'records_read', equals: true }], any: [{ field: 'records_read', equals: true }] },
        { id: 'e', any: [] },
      ];
      expect(problemsOf(model)).toEqual([
        'forbidden[0].all[0]: needs exactly one operator of equals, not_equals, greater_than, less_than, matches (found 0)',
        'forbidden[1].all[0]: needs exactly one operator of equals, not_equals, greater_than, less_than, matches (found 2)',
        'forbidden[2]: needs exactly one of all, any, not (found none)',
        'forbidden[3]: needs exactly one of all, any, not (found all, any)',
        'forbidden[4].any: must be a non-empty list',
      ]);
    });

    it('rejects transitions without a when effect, without writes, with empty writes or an empty guard', () => {
      const model = exfiltrationModel();
      model.transitions = [
        { when: { resource: 'x' }, set: { records_read: true } },
        { when: { effect: 'x' } },
        { when: { effect: 'x' }, set: {}, requires: [] },
      ];
      expect(problemsOf(model)).toEqual([
        'transitions[0].when.effect: required',
        'transitions[1]: needs set or add (a rule that writes nothing has no effect)',
        'transitions[2].requires: must be a non-empty list',
        'transitions[2].set: must be a non-empty object of field values',
      ]);
    });

    it('refuses fnmatch-only wildcards and blank patterns instead of matching them literally', () => {
      const model = exfiltrationModel();
      model.transitions[0].when.resource = 'crm/customers/?';
      model.transitions[1].when.destination = '[ei]xternal:*';
      model.transitions[1].when.effect = ' ';
      expect(problemsOf(model)).toEqual([
        'transitions[0].when.resource: only * is a wildcard; ? and [...] are not supported',
        'transitions[1].when.effect: must be a non-empty glob string',
        'transitions[1].when.destination: only * is a wildcard; ? and [...] are not supported',
      ]);
    });

    it('refuses when globs that begin or end with whitespace: effect values are trimmed, so they could never match', () => {
      const model = exfiltrationModel();
      model.transitions[1].when.effect = ' upload';
      model.transitions[1].when.destination = 'external:* ';
      model.transitions[0].when.resource = 'crm/customers/*\t';
      expect(problemsOf(model)).toEqual([
        'transitions[0].when.resource: must not begin or end with whitespace (it matches the trimmed value)',
        'transitions[1].when.effect: must not begin or end with whitespace (it matches the trimmed value)',
        'transitions[1].when.destination: must not begin or end with whitespace (it matches the trimmed value)',
      ]);
      // The paired control: inner spaces are part of the glob, and a value with them matches.
      const spaced = exfiltrationModel();
      spaced.transitions[1].when.destination = 'external:shared drive/*';
      const machine = compileStateModel(spaced);
      const upload = { ...externalUpload, destination: ' external:shared drive/q3 ' };
      expect(machine.firstViolation(fold(machine, [read, upload]))).toBe('customer_data_uploaded_externally');
    });

    it('rejects reserved and blank field names', () => {
      const model = exfiltrationModel();
      model.initial = JSON.parse('{"records_read": false, "external_uploads": 0, "__proto__": 1, " ": 2}');
      expect(problemsOf(model)).toEqual([
        "initial.__proto__: '__proto__' is a reserved name",
        'initial[" "]: field name must be a non-empty string',
      ]);
    });

    it('accepts a model built in another realm, and refuses class instances', () => {
      const foreign = runInNewContext(`JSON.parse(${JSON.stringify(JSON.stringify(exfiltrationModel()))})`);
      expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
      expect(compileStateModel(foreign).forbiddenIds).toEqual(['customer_data_uploaded_externally']);
      class Initial {
        records_read = false;
      }
      expect(problemsOf({ ...exfiltrationModel(), initial: new Initial() })).toEqual([
        'initial: must be an object of field values',
      ]);
    });

    it('rejects initial values that are not state values', () => {
      const model = exfiltrationModel();
      model.initial.tags = ['a'];
      expect(problemsOf(model)).toEqual(['initial.tags: must be a string, finite number, boolean or null']);
    });
  });

  describe('step', () => {
    it('reaches the forbidden state when the read precedes the upload, and not in the other order', () => {
      const machine = compileStateModel(exfiltrationModel());
      expect(machine.firstViolation(fold(machine, [read, externalUpload]))).toBe('customer_data_uploaded_externally');
      expect(machine.firstViolation(fold(machine, [externalUpload, read]))).toBeNull();
      expect(fold(machine, [externalUpload, read])).toEqual({ records_read: true, external_uploads: 0 });
    });

    it('evaluates guards against the state before the effect, so one effect cannot satisfy its own guard', () => {
      const machine = compileStateModel({
        initial: { armed: false, fired: 0 },
        transitions: [
          { when: { effect: 'go' }, set: { armed: true } },
          { when: { effect: 'go' }, requires: [{ field: 'armed', equals: true }], add: { fired: 1 } },
        ],
        forbidden: [{ id: 'fired', all: [{ field: 'fired', greater_than: 0 }] }],
      });
      const first = machine.step(machine.initial, { effect: 'go' });
      expect(first.matched).toEqual([0]);
      expect(machine.firstViolation(first.state)).toBeNull();
      const second = machine.step(first.state, { effect: 'go' });
      expect(second.matched).toEqual([0, 1]);
      expect(machine.firstViolation(second.state)).toBe('fired');
    });

    it('applies every matching rule in declaration order, and within a rule set before add', () => {
      const machine = compileStateModel({
        initial: { n: 0 },
        transitions: [
          { when: { effect: 'reset' }, set: { n: 10 }, add: { n: 1 } },
          { when: { effect: 'r*' }, add: { n: 5 } },
          { when: { effect: 'rebase' }, set: { n: 100 } },
        ],
        forbidden: [{ id: 'big', all: [{ field: 'n', greater_than: 1000 }] }],
      });
      expect(machine.step(machine.initial, { effect: 'reset' })).toEqual({ state: { n: 16 }, matched: [0, 1] });
      expect(machine.step(machine.initial, { effect: 'rebase' })).toEqual({ state: { n: 100 }, matched: [1, 2] });
    });

    it('compares strictly: a boolean never equals a number and a string never equals a number', () => {
      const machine = compileStateModel({
        initial: { flag: 0 },
        transitions: [
          { when: { effect: 'bool' }, set: { flag: true } },
          { when: { effect: 'text' }, set: { flag: '1' } },
          { when: { effect: 'one' }, set: { flag: 1 } },
        ],
        forbidden: [{ id: 'flag_is_one', all: [{ field: 'flag', equals: 1 }] }],
      });
      expect(machine.firstViolation(machine.step(machine.initial, { effect: 'bool' }).state)).toBeNull();
      expect(machine.firstViolation(machine.step(machine.initial, { effect: 'text' }).state)).toBeNull();
      expect(machine.firstViolation(machine.step(machine.initial, { effect: 'one' }).state)).toBe('flag_is_one');
    });

    it('matches when globs case-sensitively, with * spanning slashes, after trimming effect values', () => {
      const machine = compileStateModel(exfiltrationModel());
      const afterRead = fold(machine, [read]);
      const uploads = (effect: Effect) => machine.step(afterRead, effect).matched.length > 0;
      expect(
        uploads({ effect: 'upload', resource: 'exports/2025/q3/customers.csv', destination: 'external:a/b' }),
      ).toBe(true);
      expect(uploads({ effect: ' upload ', resource: ' exports/x ', destination: '\texternal:x' })).toBe(true);
      expect(uploads({ effect: 'Upload', resource: 'exports/x', destination: 'external:x' })).toBe(false);
      expect(uploads({ effect: 'upload', resource: 'Exports/x', destination: 'external:x' })).toBe(false);
      expect(uploads({ effect: 'upload', resource: 'archive/exports/x', destination: 'external:x' })).toBe(false);
      expect(uploads({ effect: 'upload', resource: 'exports/x', destination: 'internal:x' })).toBe(false);
    });

    it('requires a resource or destination on the effect when the when clause names one', () => {
      const machine = compileStateModel(exfiltrationModel());
      const afterRead = fold(machine, [read]);
      expect(machine.step(afterRead, { effect: 'upload', resource: 'exports/x' }).matched).toEqual([]);
      expect(machine.step(afterRead, { effect: 'upload', resource: 'exports/x', destination: null }).matched).toEqual(
        [],
      );
      expect(machine.step(afterRead, { effect: 'upload', resource: 'exports/x', destination: '  ' }).matched).toEqual(
        [],
      );
      expect(machine.step(machine.initial, { effect: 'read' }).matched).toEqual([]);
    });

    it('is pure: the input state is untouched, an unmatched effect returns it as is, and new states are frozen', () => {
      const machine = compileStateModel(exfiltrationModel());
      expect(Object.isFrozen(machine.initial)).toBe(true);
      const unmatched = machine.step(machine.initial, { effect: 'delete' });
      expect(unmatched.state).toBe(machine.initial);
      const mutable = { records_read: true, external_uploads: 3 };
      const next = machine.step(mutable, externalUpload);
      expect(mutable).toEqual({ records_read: true, external_uploads: 3 });
      expect(next.state).toEqual({ records_read: true, external_uploads: 4 });
      expect(Object.isFrozen(next.state)).toBe(true);
    });

    it('does not freeze or keep the caller’s initial object', () => {
      const model = exfiltrationModel();
      const machine = compileStateModel(model);
      model.initial.records_read = true;
      expect(Object.isFrozen(model.initial)).toBe(false);
      expect(machine.initial.records_read).toBe(false);
    });

    it.each([
      [{ effect: '' }],
      [{ effect: 42 }],
      [{ effect: 'upload', resource: 7 }],
      [{ effect: 'upload', destination: { host: 'x' } }],
    ])('throws TrajectoryStepError for a malformed effect %j', (effect) => {
      const machine = compileStateModel(exfiltrationModel());
      expect(() => machine.step(machine.initial, effect as unknown as Effect)).toThrow(TrajectoryStepError);
    });

    it('throws TrajectoryStepError when adding to a state value that is not a number', () => {
      const machine = compileStateModel(exfiltrationModel());
      expect(() => machine.step({ records_read: true, external_uploads: 'many' }, externalUpload)).toThrow(
        /external_uploads' is not numeric/,
      );
    });

    it('treats field names that shadow Object.prototype members as plain fields', () => {
      const machine = compileStateModel({
        initial: {},
        transitions: [{ when: { effect: 'tick' }, add: { toString: 1 } }],
        forbidden: [{ id: 'ticked', all: [{ field: 'toString', greater_than: 0 }] }],
      });
      expect(machine.firstViolation(machine.initial)).toBeNull();
      expect(machine.firstViolation(machine.step(machine.initial, { effect: 'tick' }).state)).toBe('ticked');
    });
  });

  describe('firstViolation', () => {
    function predicateMachine(forbidden: StateModel['forbidden']): StateMachine {
      return compileStateModel({
        initial: { read: false, uploads: 0, host: 'none' },
        transitions: [
          { when: { effect: 'read' }, set: { read: true } },
          { when: { effect: 'upload', destination: '*' }, add: { uploads: 1 } },
          { when: { effect: 'move', destination: 'external:*' }, set: { host: 'external' } },
        ],
        forbidden,
      });
    }

    it('reports the first holding predicate in declaration order', () => {
      const machine = predicateMachine([
        { id: 'uploaded', all: [{ field: 'uploads', greater_than: 0 }] },
        {
          id: 'read_and_uploaded',
          all: [
            { field: 'read', equals: true },
            { field: 'uploads', greater_than: 0 },
          ],
        },
      ]);
      expect(machine.forbiddenIds).toEqual(['uploaded', 'read_and_uploaded']);
      expect(machine.firstViolation({ read: true, uploads: 1, host: 'none' })).toBe('uploaded');
    });

    it('supports any and not groups beyond all', () => {
      const machine = predicateMachine([
        {
          id: 'moved_or_many',
          any: [
            { field: 'host', matches: 'ext*' },
            { field: 'uploads', greater_than: 2 },
          ],
        },
        {
          id: 'read_without_upload',
          all: [{ field: 'read', equals: true }, { not: { field: 'uploads', greater_than: 0 } }],
        },
      ]);
      expect(machine.firstViolation({ read: false, uploads: 3, host: 'none' })).toBe('moved_or_many');
      expect(machine.firstViolation({ read: false, uploads: 0, host: 'external' })).toBe('moved_or_many');
      expect(machine.firstViolation({ read: true, uploads: 0, host: 'none' })).toBe('read_without_upload');
      expect(machine.firstViolation({ read: true, uploads: 1, host: 'none' })).toBeNull();
    });

    it('never holds a condition on an absent field, not even not_equals, while its negation holds', () => {
      const machine = predicateMachine([
        { id: 'host_changed', all: [{ field: 'host', not_equals: 'none' }] },
        { id: 'host_unknown', not: { field: 'host', matches: '*' } },
      ]);
      expect(machine.firstViolation({ read: false, uploads: 0 })).toBe('host_unknown');
      expect(machine.firstViolation({ read: false, uploads: 0, host: 'x' })).toBe('host_changed');
    });
  });

  describe('covers and fieldsOf', () => {
    it('says whether any when clause matches, guards aside', () => {
      const machine = compileStateModel(exfiltrationModel());
      expect(machine.covers(externalUpload)).toBe(true);
      expect(machine.step(machine.initial, externalUpload).matched).toEqual([]);
      expect(machine.covers({ effect: 'upload', resource: 'exports/x', destination: 'internal:x' })).toBe(false);
    });

    it('lists the fields a predicate reads, once each, and nothing for an unknown id', () => {
      const model = exfiltrationModel();
      model.forbidden[0].all.push({
        any: [{ field: 'records_read', equals: true }, { not: { field: 'external_uploads', less_than: 0 } }],
      });
      const machine = compileStateModel(model);
      expect(machine.fieldsOf('customer_data_uploaded_externally')).toEqual(['external_uploads', 'records_read']);
      expect(machine.fieldsOf('nope')).toEqual([]);
    });
  });
});
