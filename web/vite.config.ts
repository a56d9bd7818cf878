import { defineConfig } from "vite";
import preact from "@preact/preset-vite";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

// Built into dist/web, which the server serves under /static/web/ (index.html at /).
export default defineConfig({
  root: here,
  base: "/static/web/",
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    assetsDir: "assets",
    reportCompressedSize: false,
  },
  server: {
    // `npx vite --config web/vite.config.ts` during client work: API calls go to `npm run dev`.
    proxy: { "/api": "http://localhost:9991", "/login": "http://localhost:9991", "/logout": "http://localhost:9991", "/user_uploads": "http://localhost:9991" },
  },
});
