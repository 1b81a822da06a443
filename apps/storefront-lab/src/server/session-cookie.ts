import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The cookie that names a browser's lab session: a random id, nothing else. */
export const SESSION_COOKIE = 'verdict_lab_session';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The request's lab session id, or a new one set on the response (HttpOnly, SameSite=Strict). */
export function sessionIdOf(request: IncomingMessage, response: ServerResponse): string {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = pair.trim().split('=');
    if (name === SESSION_COOKIE && UUID.test(value ?? '')) return value;
  }
  const id = randomUUID();
  response.setHeader('set-cookie', `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict`);
  return id;
}
