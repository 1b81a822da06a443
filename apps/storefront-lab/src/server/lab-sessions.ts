import type { INestApplication, OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LabModule } from '../lab.module.js';
import type { LiveLabProvider } from '../live/live-lab-provider.js';
import { newSessionDatabase, removeSessionDatabase } from '../session/session-databases.js';

type Handler = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

interface LabSession {
  readonly app: Promise<INestApplication>;
  /** The session's SQLite file, or `:memory:`. */
  readonly database: string;
  lastUsed: number;
}

/**
 * One lab application per browser session, each on its own SQLite database: runs, budgets, receipts, claims
 * and trajectories of one browser are never seen by another. With a `directory` each database is a file there
 * (so the operator CLI can open the one the page shows), deleted when its session closes; without one it is
 * in memory. Past `maxSessions` the least recently used session is closed.
 */
export class LabSessions implements OnApplicationShutdown {
  private readonly sessions = new Map<string, LabSession>();
  private clock = 0;

  constructor(
    private readonly maxSessions = 24,
    private readonly live?: LiveLabProvider,
    private readonly directory?: string,
    /** The clock of every session's lab application (`LabOptions.clock`); default the real time. */
    private readonly sessionClock?: () => Date,
  ) {}

  /** The request handler of this session's lab application, booting it on first use. */
  async handlerOf(id: string): Promise<Handler> {
    let session = this.sessions.get(id);
    if (session === undefined) {
      const database = this.directory === undefined ? ':memory:' : newSessionDatabase(this.directory);
      session = { app: bootSession(database, this.live, this.sessionClock), database, lastUsed: ++this.clock };
      this.sessions.set(id, session);
      await this.evict();
    }
    session.lastUsed = ++this.clock;
    const app = await session.app;
    return app.getHttpAdapter().getInstance() as Handler;
  }

  /** Closes this session's application: the next request starts again from the seed. */
  async reset(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    if (session === undefined) return;
    await (await session.app).close();
    if (session.database !== ':memory:') removeSessionDatabase(session.database);
  }

  async closeAll(): Promise<void> {
    for (const id of [...this.sessions.keys()]) await this.reset(id);
  }

  /** The lab server is closing (`app.close()`, or SIGTERM/SIGINT through its shutdown hooks): every session too. */
  onApplicationShutdown(): Promise<void> {
    return this.closeAll();
  }

  private async evict(): Promise<void> {
    while (this.sessions.size > this.maxSessions) {
      const [oldest] = [...this.sessions.entries()].sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
      await this.reset(oldest);
    }
  }
}

async function bootSession(
  database: string,
  live: LiveLabProvider | undefined,
  clock: (() => Date) | undefined,
): Promise<INestApplication> {
  const app = await NestFactory.create(LabModule.forRoot({ database, live, clock }), { logger: ['error'] });
  await app.init();
  return app;
}
