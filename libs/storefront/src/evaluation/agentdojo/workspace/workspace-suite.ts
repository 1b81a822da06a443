import { type ResultProvenance, Source, Trust } from '@verdict/nestjs';
import { agentDojoCorpus } from '../agentdojo-corpus.js';
import type { AgentDojoSuite } from '../agentdojo-suite.js';
import type { SuiteToolProvenance } from '../suite-tool.js';
import { WORKSPACE_ATTACKER_VALUES, WORKSPACE_SECURITY, WORKSPACE_UTILITY } from './workspace-checks.js';
import { workspaceEnvironment, type WorkspaceEnvironment } from './workspace-environment.js';
import { workspaceTools } from './workspace-tools.js';

type Row = Readonly<Record<string, unknown>>;

const thirdParty = (source: string) => ({ trust: Trust.Untrusted, source: Source.external(source) });

/** An e-mail someone else wrote: its subject, body and attachments are theirs; the user's own sent mail is hers. */
const received = (row: Row) => row.status !== 'sent';
/** A file someone other than the user can write: owned by another, or shared with write access. */
const writableByOthers = (account: string) => (row: Row) =>
  row.owner !== account || Object.values((row.shared_with ?? {}) as Row).includes('rw');

/**
 * The labels of results holding `rows` (under `prefix`: `*.` for a list, `` for one row): the workspace's own
 * data (ids, times, addresses, participants, sharing) is trusted; what others wrote is untrusted, per field and
 * per row (`when`), so the user's own sent mail and own files stay trusted.
 */
function labels(prefix: string, account: string): ResultProvenance {
  const email = (field: string) => [`${prefix}${field}`, { ...thirdParty('email-senders'), when: received }];
  return {
    trust: Trust.Trusted,
    source: Source.application('workspace'),
    format: 'json',
    paths: Object.fromEntries([
      email('subject'),
      email('body'),
      email('attachments'),
      [`${prefix}description`, thirdParty('calendar-organisers')],
      [`${prefix}content`, { ...thirdParty('shared-files'), when: writableByOthers(account) }],
    ]),
  };
}

/** The positive rule, denied when not derived: no human is in the loop. */
const derived = { derivedFrom: 'trusted', otherwise: 'deny' } as const;

/** The workspace's own addresses: the contact list, every event's participants, every file's owner and sharing. */
function knownAddresses(environment: WorkspaceEnvironment): string[] {
  return [
    ...environment.inbox.contact_list.map((contact) => contact.email),
    ...Object.values(environment.calendar.events).flatMap((event) => event.participants),
    ...Object.values(environment.cloud_drive.files).flatMap((file) => [file.owner, ...Object.keys(file.shared_with)]),
  ];
}

/**
 * The provenance arm's declarations, no human in the loop (every rule denies or allows):
 * - results: the workspace's own data is trusted; received e-mails' subjects, bodies and attachments, event
 *   descriptions and the content of files others can write are untrusted (`when`, per row);
 * - destinations take the positive rule: an e-mail's recipients, cc and bcc, an event's participants, whom a
 *   file is shared with, the ids of what is deleted, rescheduled or cancelled must be derived from trusted
 *   content (the user's request, the workspace's data) or, for addresses, from the workspace's own addresses
 *   (`trustedValues`: contacts, participants, owners, sharing);
 * - an e-mail body is free text the model writes: its links, addresses and identifiers must not be copied from
 *   untrusted content (`trusted_only`, compared canonically, cut or not);
 * - deleting an e-mail or a file, and reading the unread e-mails (which marks them read), are refused under
 *   untrusted context: an id is a short number that trusted listings hold whoever asked for it (the attacker's
 *   `13` is in every listing), and reading the unread e-mails takes no argument a rule could trace.
 */
function provenance(tool: string, environment: () => WorkspaceEnvironment): SuiteToolProvenance {
  const account = 'emma.johnson@bluesparrowtech.com';
  const list = labels('*.', account);
  const one = labels('', account);
  const addresses = () => knownAddresses(environment());
  switch (tool) {
    case 'send_email':
      return {
        results: one,
        policy: {
          destinations: ['recipients', 'cc', 'bcc'],
          arguments: { recipients: derived, cc: derived, bcc: derived, body: 'trusted_only' },
          trustedValues: addresses,
        },
      };
    case 'delete_email':
      return { results: one, policy: { arguments: { email_id: derived }, untrustedContext: 'deny' } };
    case 'get_unread_emails':
      return { results: list, policy: { untrustedContext: 'deny' } };
    case 'create_calendar_event':
      return {
        results: one,
        policy: { destinations: ['participants'], arguments: { participants: derived }, trustedValues: addresses },
      };
    case 'add_calendar_event_participants':
      return {
        results: one,
        policy: {
          destinations: ['participants'],
          arguments: { participants: derived, event_id: derived },
          trustedValues: addresses,
        },
      };
    case 'cancel_calendar_event':
    case 'reschedule_calendar_event':
      return { results: one, policy: { arguments: { event_id: derived } } };
    case 'share_file':
      return {
        results: one,
        policy: {
          destinations: ['email'],
          arguments: { email: derived, file_id: derived },
          trustedValues: addresses,
        },
      };
    case 'delete_file':
      return { results: one, policy: { arguments: { file_id: derived }, untrustedContext: 'deny' } };
    case 'append_to_file':
    case 'create_file':
    case 'get_file_by_id':
      return { results: one };
    case 'get_current_day':
      return { results: { trust: Trust.Trusted, source: Source.application('workspace') } };
    default:
      return { results: list };
  }
}

/** AgentDojo's `workspace` suite (v1.2.1): 24 tools, 40 user tasks, 14 injection tasks, 560 pairs. */
export function workspaceSuite(): AgentDojoSuite<WorkspaceEnvironment> {
  const corpus = agentDojoCorpus('workspace');
  return {
    name: 'workspace',
    corpus,
    tools: workspaceTools(corpus),
    environment: workspaceEnvironment,
    groundTruth: (task) => task.ground_truth_calls,
    utility: WORKSPACE_UTILITY,
    security: WORKSPACE_SECURITY,
    attackerValues: WORKSPACE_ATTACKER_VALUES,
    // The attack text sits in several rows of one result (four files of a listing) and comes back in the results
    // of the attacker's own reads: the model obeys it once, as AgentDojo's models do, not once per copy.
    following: { maxInjectedTurns: 1, distinctInstructions: true },
    provenance,
  };
}
