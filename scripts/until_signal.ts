// Keeps a script's server until SIGINT or SIGTERM, then stops it and exits
// (signal listeners alone do not keep Deno's event loop alive; a timer does).

export function stopOnSignal(stop: () => Promise<void>): void {
  const keepAlive = setInterval(() => {}, 1 << 30);
  let stopping = false;
  const onSignal = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(keepAlive);
    await stop();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
}
