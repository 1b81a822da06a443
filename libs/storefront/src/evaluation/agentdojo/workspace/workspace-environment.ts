/** A calendar event, as the workspace suite's `CalendarEvent` holds it (times `YYYY-MM-DDTHH:MM`). */
export interface WorkspaceEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: string;
}

/** An e-mail; an attachment is a file id or an event. */
export interface WorkspaceEmail {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: string;
  read: boolean;
  timestamp: string;
  attachments: (string | WorkspaceEvent)[];
}

/** A cloud-drive file; `size` is its content's length. */
export interface WorkspaceFile {
  id_: string;
  filename: string;
  content: string;
  owner: string;
  last_modified: string;
  shared_with: Record<string, string>;
  size: number;
  file_type: string;
}

/** An address-book entry. */
export interface WorkspaceContact {
  email: string;
  name: string;
}

/**
 * The `workspace` suite's environment as its tools see it: events, e-mails (and their trash) and files keyed
 * by id, and the contact list built from the initial e-mails' addresses.
 */
export interface WorkspaceEnvironment {
  readonly calendar: { account_email: string; current_day: string; events: Record<string, WorkspaceEvent> };
  readonly inbox: {
    account_email: string;
    emails: Record<string, WorkspaceEmail>;
    trash: Record<string, WorkspaceEmail>;
    contact_list: WorkspaceContact[];
  };
  readonly cloud_drive: { account_email: string; files: Record<string, WorkspaceFile> };
}

type Row = Record<string, unknown>;

/** The corpus's environment (its `initial_*` lists, after the vectors are filled) as the tools' id-keyed maps. */
export function workspaceEnvironment(data: unknown): WorkspaceEnvironment {
  const { calendar, inbox, cloud_drive: drive } = data as Record<string, Row>;
  const emails = (inbox!.initial_emails as Row[]).map(
    (email) =>
      ({
        ...email,
        cc: email.cc ?? [],
        bcc: email.bcc ?? [],
        attachments: email.attachments ?? [],
      }) as unknown as WorkspaceEmail,
  );
  return {
    calendar: {
      account_email: String(calendar!.account_email),
      current_day: String(calendar!.current_day),
      events: byId(
        (calendar!.initial_events as Row[]).map((event) => ({ location: null, ...event }) as WorkspaceEvent),
      ),
    },
    inbox: {
      account_email: String(inbox!.account_email),
      emails: byId(emails),
      trash: {},
      contact_list: contactsOf(emails, (inbox!.contact_list as WorkspaceContact[] | null) ?? []),
    },
    cloud_drive: {
      account_email: String(drive!.account_email),
      files: byId(
        (drive!.initial_files as Row[]).map(
          (file) =>
            ({
              file_type: 'document',
              shared_with: {},
              ...file,
              size: sizeOf(String(file.content)),
            }) as WorkspaceFile,
        ),
      ),
    },
  };
}

/** A file's size: the number of characters of its content. */
export const sizeOf = (content: string) => [...content].length;

/** The next id of a map: one more than its largest numeric id. */
export function nextId(map: Readonly<Record<string, unknown>>): string {
  return String(Math.max(-1, ...Object.keys(map).map(Number)) + 1);
}

function byId<T extends { id_: string }>(rows: readonly T[]): Record<string, T> {
  return Object.fromEntries(rows.map((row) => [String(row.id_), { ...row, id_: String(row.id_) }]));
}

/**
 * The contact list: the declared contacts, then every address of the initial e-mails (recipients, sender,
 * cc, bcc) not yet listed, named after its local part (`sarah.baker` → `Sarah Baker`).
 */
function contactsOf(emails: readonly WorkspaceEmail[], declared: readonly WorkspaceContact[]): WorkspaceContact[] {
  const contacts = [...declared];
  for (const email of emails)
    for (const address of [...email.recipients, email.sender, ...email.cc, ...email.bcc])
      if (!contacts.some((contact) => contact.email === address))
        contacts.push({ email: address, name: titleCase(address.split('@')[0]!.replaceAll('.', ' ')) });
  return contacts;
}

const titleCase = (text: string) =>
  text.replace(/\p{L}+/gu, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase());
