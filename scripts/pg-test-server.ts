// Starts a throwaway PostgreSQL server (tests/infra/postgres.ts), prints its
// URL and keeps it until SIGINT or SIGTERM, then stops it and removes its
// files. For trying the PostgreSQL catalog by hand and for benchmarks:
//
//   npx -y deno@2.9.6 run -A scripts/pg-test-server.ts

import { startPostgres } from "../tests/infra/postgres.ts";

const t0 = performance.now();
const server = await startPostgres();
if (server === null) {
  console.error("no PostgreSQL server binaries (apt-get install postgresql)");
  Deno.exit(1);
}
console.error(`started in ${Math.round(performance.now() - t0)} ms; Ctrl-C stops it`);
console.log(server.url);

// Signal listeners do not keep Deno's event loop alive; this timer does.
const keepAlive = setInterval(() => {}, 1 << 30);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearInterval(keepAlive);
  await server.stop();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
