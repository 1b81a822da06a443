import type { AgentDojoCorpus } from '../agentdojo-corpus.js';
import { SuiteToolError, suiteTools, type SuiteExecutors } from '../suite-tool.js';
import {
  nextId,
  sizeOf,
  type WorkspaceEmail,
  type WorkspaceEnvironment,
  type WorkspaceEvent,
  type WorkspaceFile,
} from './workspace-environment.js';

type Args = Record<string, unknown>;

const text = (args: Args, name: string) => String(args[name] ?? '');
const list = (args: Args, name: string) => (Array.isArray(args[name]) ? (args[name] as unknown[]).map(String) : []);
const contains = (haystack: string, needle: string) => haystack.toLowerCase().includes(needle.toLowerCase());

/** The time a write happens at, as the suite's `datetime.now()` stamps it (seconds, no zone). */
const now = () => new Date().toISOString().slice(0, 19);

/** A time argument (`2024-05-19 12:00` or ISO) as the calendar stores it: `YYYY-MM-DDTHH:MM`. */
function calendarTime(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})/.exec(value.trim());
  if (!match) throw new SuiteToolError(`Invalid isoformat string: '${value}'`);
  return `${match[1]}T${match[2]}`;
}

/** `time` moved by `minutes`, in the calendar's form. */
const shifted = (time: string, minutes: number) =>
  new Date(Date.parse(`${time}:00Z`) + minutes * 60_000).toISOString().slice(0, 16);
const minutesBetween = (start: string, end: string) => (Date.parse(`${end}:00Z`) - Date.parse(`${start}:00Z`)) / 60_000;

function eventOf(env: WorkspaceEnvironment, id: string): WorkspaceEvent {
  const event = env.calendar.events[id];
  if (event === undefined) throw new SuiteToolError(`Event with ID '${id}' not found.`);
  return event;
}

function fileOf(env: WorkspaceEnvironment, id: string): WorkspaceFile {
  const file = env.cloud_drive.files[id];
  if (file === undefined) throw new SuiteToolError(`File with ID '${id}' not found.`);
  return file;
}

/** Adds a sent e-mail from the account at the next id (recipients are not validated), and returns it. */
function sendEmail(
  env: WorkspaceEnvironment,
  message: Pick<WorkspaceEmail, 'recipients' | 'subject' | 'body'> & Partial<Pick<WorkspaceEmail, 'cc' | 'bcc'>>,
  attachments: WorkspaceEmail['attachments'] = [],
): WorkspaceEmail {
  const email: WorkspaceEmail = {
    id_: nextId(env.inbox.emails),
    sender: env.inbox.account_email,
    cc: [],
    bcc: [],
    ...message,
    status: 'sent',
    read: true,
    timestamp: now(),
    attachments,
  };
  env.inbox.emails[email.id_] = email;
  return email;
}

/** An attachment argument: `{type: 'file', file_id}` is kept as the file id, `{type: 'event', event_details}` as the event. */
function attachmentOf(value: unknown): string | WorkspaceEvent {
  const attachment = (value ?? {}) as Args;
  if (attachment.type === 'file') return String(attachment.file_id);
  if (attachment.type === 'event') return attachment.event_details as WorkspaceEvent;
  throw new SuiteToolError(`Invalid attachment type: ${String(attachment.type)}`);
}

const emailsWith = (env: WorkspaceEnvironment, status: string) =>
  Object.values(env.inbox.emails).filter((email) => email.status === status);

function searchEmails(env: WorkspaceEnvironment, args: Args): WorkspaceEmail[] {
  const sender = args.sender === null || args.sender === undefined ? null : String(args.sender).toLowerCase();
  const found = Object.values(env.inbox.emails).filter(
    (email) =>
      (contains(email.subject, text(args, 'query')) || contains(email.body, text(args, 'query'))) &&
      (sender === null || email.sender.toLowerCase() === sender),
  );
  if (found.length === 0) throw new SuiteToolError('No emails found. Try with a different query.');
  return found;
}

function searchContacts(env: WorkspaceEnvironment, query: string, field: 'name' | 'email') {
  const found = env.inbox.contact_list.filter((contact) => contains(contact[field], query));
  if (found.length === 0) throw new SuiteToolError(`Contact with ${field} '${query}' not found.`);
  return found;
}

/** The e-mail a calendar change sends to an event's participants. */
function notify(env: WorkspaceEnvironment, event: WorkspaceEvent, subject: string): void {
  sendEmail(env, { recipients: [...event.participants], subject, body: event.description }, [{ ...event }]);
}

/** The executors of the workspace suite's tools, as AgentDojo's `email_client.py`, `calendar_client.py` and `cloud_drive_client.py` define them. */
const EXECUTORS: SuiteExecutors<WorkspaceEnvironment> = {
  send_email: {
    consequential: true,
    run: (env, args) =>
      sendEmail(
        env,
        {
          recipients: list(args, 'recipients'),
          subject: text(args, 'subject'),
          body: text(args, 'body'),
          cc: list(args, 'cc'),
          bcc: list(args, 'bcc'),
        },
        Array.isArray(args.attachments) ? args.attachments.map(attachmentOf) : [],
      ),
  },
  delete_email: {
    consequential: true,
    run: (env, args) => {
      const id = text(args, 'email_id');
      const email = env.inbox.emails[id];
      if (email === undefined) throw new SuiteToolError(`Email with ID '${id}' not found.`);
      delete env.inbox.emails[id];
      env.inbox.trash[id] = email;
      return `Email with id ${id} deleted successfully.`;
    },
  },
  // Reading the unread e-mails marks them read: a change of state.
  get_unread_emails: {
    consequential: true,
    run: (env) => {
      const unread = Object.values(env.inbox.emails).filter((email) => !email.read);
      for (const email of unread) email.read = true;
      return unread.map((email) => ({ ...email }));
    },
  },
  get_sent_emails: { consequential: false, run: (env) => emailsWith(env, 'sent') },
  get_received_emails: { consequential: false, run: (env) => emailsWith(env, 'received') },
  get_draft_emails: { consequential: false, run: (env) => emailsWith(env, 'draft') },
  search_emails: { consequential: false, run: searchEmails },
  search_contacts_by_name: {
    consequential: false,
    run: (env, args) => searchContacts(env, text(args, 'query'), 'name'),
  },
  search_contacts_by_email: {
    consequential: false,
    run: (env, args) => searchContacts(env, text(args, 'query'), 'email'),
  },
  get_current_day: { consequential: false, run: (env) => env.calendar.current_day },
  search_calendar_events: {
    consequential: false,
    run: (env, args) => {
      const day = args.date === null || args.date === undefined ? null : text(args, 'date');
      const found = Object.values(env.calendar.events).filter(
        (event) =>
          (contains(event.title, text(args, 'query')) || contains(event.description, text(args, 'query'))) &&
          (day === null || event.start_time.startsWith(day)),
      );
      if (found.length === 0) throw new SuiteToolError('No events found. Try with a different query.');
      return found;
    },
  },
  get_day_calendar_events: {
    consequential: false,
    run: (env, args) =>
      Object.values(env.calendar.events).filter((event) => event.start_time.startsWith(text(args, 'day'))),
  },
  create_calendar_event: {
    consequential: true,
    run: (env, args) => {
      const participants = [...new Set([...list(args, 'participants'), env.calendar.account_email])];
      const event: WorkspaceEvent = {
        id_: nextId(env.calendar.events),
        title: text(args, 'title'),
        description: text(args, 'description'),
        start_time: calendarTime(text(args, 'start_time')),
        end_time: calendarTime(text(args, 'end_time')),
        location: args.location === null || args.location === undefined ? null : text(args, 'location'),
        participants,
        all_day: false,
        status: 'confirmed',
      };
      env.calendar.events[event.id_] = event;
      sendEmail(env, { recipients: participants, subject: `Invitation: ${event.title}`, body: event.description }, [
        { ...event },
      ]);
      return event;
    },
  },
  cancel_calendar_event: {
    consequential: true,
    run: (env, args) => {
      const event = eventOf(env, text(args, 'event_id'));
      event.status = 'canceled';
      notify(env, event, `Canceled: '${event.title}'`);
      return `Event with ID ${event.id_} has been canceled and participants have been notified.`;
    },
  },
  reschedule_calendar_event: {
    consequential: true,
    run: (env, args) => {
      const event = eventOf(env, text(args, 'event_id'));
      const duration = minutesBetween(event.start_time, event.end_time);
      event.start_time = calendarTime(text(args, 'new_start_time'));
      event.end_time =
        args.new_end_time === null || args.new_end_time === undefined
          ? shifted(event.start_time, duration)
          : calendarTime(text(args, 'new_end_time'));
      // The suite's subject is literally this (its format string lacks the `f`).
      notify(env, event, "Rescheduled: '{event.title}'");
      return event;
    },
  },
  add_calendar_event_participants: {
    consequential: true,
    run: (env, args) => {
      const event = eventOf(env, text(args, 'event_id'));
      event.participants.push(...list(args, 'participants'));
      return event;
    },
  },
  append_to_file: {
    consequential: true,
    run: (env, args) => {
      const file = fileOf(env, text(args, 'file_id'));
      file.content += text(args, 'content');
      file.size = sizeOf(file.content);
      file.last_modified = now();
      return file;
    },
  },
  search_files_by_filename: {
    consequential: false,
    run: (env, args) =>
      Object.values(env.cloud_drive.files).filter((file) => contains(file.filename, text(args, 'filename'))),
  },
  create_file: {
    consequential: true,
    run: (env, args) => {
      const content = text(args, 'content');
      const file: WorkspaceFile = {
        id_: nextId(env.cloud_drive.files),
        filename: text(args, 'filename'),
        content,
        owner: env.cloud_drive.account_email,
        last_modified: now(),
        shared_with: {},
        size: sizeOf(content),
        file_type: 'document',
      };
      env.cloud_drive.files[file.id_] = file;
      return file;
    },
  },
  delete_file: {
    consequential: true,
    run: (env, args) => {
      const file = fileOf(env, text(args, 'file_id'));
      delete env.cloud_drive.files[file.id_];
      return file;
    },
  },
  get_file_by_id: { consequential: false, run: (env, args) => fileOf(env, text(args, 'file_id')) },
  list_files: { consequential: false, run: (env) => Object.values(env.cloud_drive.files) },
  share_file: {
    consequential: true,
    run: (env, args) => {
      const file = fileOf(env, text(args, 'file_id'));
      file.shared_with[text(args, 'email')] = text(args, 'permission');
      return file;
    },
  },
  search_files: {
    consequential: false,
    run: (env, args) => {
      const found = Object.values(env.cloud_drive.files).filter((file) => contains(file.content, text(args, 'query')));
      if (found.length === 0)
        throw new SuiteToolError(
          `No files found with the given query ('${text(args, 'query')}'). Try a different search term.`,
        );
      return found;
    },
  },
};

/** The workspace suite's 24 tools over a run's environment. */
export const workspaceTools = (corpus: AgentDojoCorpus) => suiteTools(corpus, EXECUTORS);
