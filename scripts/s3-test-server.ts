// Starts a throwaway S3 server (tests/infra/s3.ts: Swift with s3api), prints
// its endpoint and credentials as environment lines and keeps it until SIGINT
// or SIGTERM, then stops it and removes its files. For trying S3 storage by
// hand and for benchmarks (buckets are path-style: endpoint/bucket/key):
//
//   npx -y deno@2.9.6 run -A scripts/s3-test-server.ts [bucket ...]
//
// Buckets named on the command line are made before the lines are printed.

import { stopOnSignal } from "./until_signal.ts";
import { s3Client, startS3 } from "../tests/infra/s3.ts";

const t0 = performance.now();
const server = await startS3();
if (server === null) {
  console.error(
    "no Swift servers (apt-get install swift-proxy swift-account swift-container swift-object)",
  );
  Deno.exit(1);
}
const aws = s3Client(server);
for (const bucket of Deno.args) {
  const r = await aws.fetch(`${server.endpoint}/${bucket}`, { method: "PUT" });
  const text = await r.text();
  if (!r.ok) {
    console.error(`bucket ${bucket}: ${r.status} ${text}`);
    await server.stop();
    Deno.exit(1);
  }
}
console.error(`started in ${Math.round(performance.now() - t0)} ms; Ctrl-C stops it`);
console.log(`AWS_ENDPOINT_URL=${server.endpoint}`);
console.log(`AWS_ACCESS_KEY_ID=${server.accessKeyId}`);
console.log(`AWS_SECRET_ACCESS_KEY=${server.secretAccessKey}`);
console.log(`AWS_REGION=${server.region}`);

stopOnSignal(() => server.stop());
