import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LiveLabProvider } from '../live/live-lab-provider.js';
import { LabSessions } from './lab-sessions.js';
import { sessionIdOf } from './session-cookie.js';

/**
 * The lab server's own module: no routes of its own besides the session middleware and the web app; it holds the
 * sessions so that closing the server — `app.close()` or a signal through the shutdown hooks — closes them all.
 */
@Module({})
class LabServerModule {
  static holding(sessions: LabSessions): DynamicModule {
    return { module: LabServerModule, providers: [{ provide: LabSessions, useValue: sessions }] };
  }
}

/** Where the built web app is, and how many browser sessions to keep. */
export interface LabServerOptions {
  /** The Vite build output (`apps/storefront-lab/web/dist`). */
  readonly webRoot: string;
  /** The repository's `docs/`, served as plain text under `/docs/` for the header's links. */
  readonly docsRoot?: string;
  readonly maxSessions?: number;
  /**
   * Where each session's SQLite database is written (`npm start`: `.lab-data/sessions`), so that
   * `npm run verdict` can open the session the page shows; each file is deleted when its session closes.
   * Default: every session in memory.
   */
  readonly sessionsDirectory?: string;
  /**
   * The environment the live lab reads its provider from (`VERDICT_LIVE_*`, as `verdict-eval live` does);
   * `process.env` unless given. Read once, here; without a provider the live lab is off.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The clock of every session's lab application (see `LabOptions.clock`): default the real time. */
  readonly clock?: () => Date;
}

/**
 * The lab's HTTP server: the built web app as static files, and `/api/*` routed to the lab application of
 * the request's browser session (`POST /api/session/reset` closes it, so the next request starts from the seed).
 */
export async function createLabServer(options: LabServerOptions): Promise<NestExpressApplication> {
  const sessions = new LabSessions(
    options.maxSessions,
    LiveLabProvider.fromEnv(options.env ?? process.env),
    options.sessionsDirectory,
    options.clock,
  );
  const app = await NestFactory.create<NestExpressApplication>(LabServerModule.holding(sessions), {
    bodyParser: false,
    logger: ['error', 'warn'],
  });
  app.use((request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => {
    const path = (request.url ?? '/').split('?')[0];
    // The page gets its session cookie with the page itself: its first API requests go out in parallel, and
    // without a cookie each would start a session of its own (the session view of one, the claims of another).
    if (path === '/' || path === '/index.html') sessionIdOf(request, response);
    if (!path.startsWith('/api/')) return next();
    const id = sessionIdOf(request, response);
    if (path === '/api/session/reset' && request.method === 'POST') {
      sessions
        .reset(id)
        .then(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"reset":true}'), next);
      return;
    }
    sessions.handlerOf(id).then((handler) => handler(request, response, next), next);
  });
  app.useStaticAssets(options.webRoot, { index: 'index.html', maxAge: 0 });
  if (options.docsRoot !== undefined)
    app.useStaticAssets(options.docsRoot, {
      prefix: '/docs/',
      setHeaders: (response) => response.setHeader('content-type', 'text/plain; charset=utf-8'),
    });
  return app;
}
