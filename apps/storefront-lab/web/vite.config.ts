import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The lab's web app: built into web/dist by `npm start` (and before the browser tests), served by the lab's Nest app.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
  logLevel: 'warn',
});
