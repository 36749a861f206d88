/// <reference types="vitest" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The master serves the build at /det/ (src/master/handlers/webui.cc); `npm run dev` proxies the API
// to a master on DET_MASTER (default http://127.0.0.1:8080).
const master = process.env.DET_MASTER ?? 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/det/',
  plugins: [react()],
  build: { outDir: 'build', sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': master, '/proxy': master } },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
