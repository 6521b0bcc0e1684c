// Starts a throwaway PostgreSQL server (tests/infra/postgres.ts), prints its
// URL and keeps it until SIGINT or SIGTERM, then stops it and removes its
// files. For trying the PostgreSQL catalog by hand and for benchmarks:
//
//   npx -y deno@2.9.6 run -A scripts/pg-test-server.ts

import { stopOnSignal } from "./until_signal.ts";
import { startPostgres } from "../tests/infra/postgres.ts";

const t0 = performance.now();
const server = await startPostgres();
if (server === null) {
  console.error("no PostgreSQL server binaries (apt-get install postgresql)");
  Deno.exit(1);
}
console.error(`started in ${Math.round(performance.now() - t0)} ms; Ctrl-C stops it`);
console.log(server.url);

stopOnSignal(() => server.stop());
