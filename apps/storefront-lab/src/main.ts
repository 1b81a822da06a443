import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLabServer } from './server/lab-server.js';
import { SESSIONS_DIRECTORY } from './session/session-databases.js';

const here = dirname(fileURLToPath(import.meta.url));
const webRoot = resolve(here, '../web/dist');
if (!existsSync(resolve(webRoot, 'index.html')))
  throw new Error(`The lab's web app is not built at ${webRoot}: run \`npm start\` (it builds it first).`);

const app = await createLabServer({
  webRoot,
  docsRoot: resolve(here, '../../../docs'),
  sessionsDirectory: resolve(SESSIONS_DIRECTORY),
});
app.enableShutdownHooks();
const port = Number(process.env.PORT ?? 3000);
await app.listen(port, '127.0.0.1');
console.log(
  `Verdict storefront lab: http://localhost:${port} (one SQLite database per browser session, in ${SESSIONS_DIRECTORY})`,
);
