#!/usr/bin/env node
// `npx confab <command>`: Confab's management commands (build first: `npm run build`).
import { main } from "../dist/src/cli/manage.js";

process.exitCode = await main(process.argv.slice(2));
