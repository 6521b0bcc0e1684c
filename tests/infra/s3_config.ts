// Configuration text for the Swift-based S3 test server (tests/infra/s3.ts):
// swift.conf, the four servers' paste.deploy files, and the Python program
// that builds the rings and runs the servers with Debian's python3-swift.

/** The ports and paths one server set uses. */
export interface SwiftLayout {
  /** Temp dir holding everything: confs, rings, srv/d1 (the one device). */
  dir: string;
  proxy: number;
  account: number;
  container: number;
  object: number;
  /**
   * A port nothing listens on. tempauth insists on a memcache client even for
   * S3 signatures, but Swift works without a memcached behind it; refused
   * connections fail fast (and the cache filter's complaints are silenced).
   */
  memcache: number;
}

/** The tempauth user; its S3 access key is `account:user`, its secret the key. */
export const S3_ACCESS_KEY = "test:tester";
export const S3_SECRET_KEY = "testing";
export const S3_REGION = "us-east-1";

export function swiftConf(): string {
  return `[swift-hash]
swift_hash_path_suffix = loch-test-suffix
swift_hash_path_prefix = loch-test-prefix

[storage-policy:0]
name = Policy-0
default = yes
`;
}

function common(l: SwiftLayout, port: number): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
swift_dir = ${l.dir}
devices = ${l.dir}/srv
mount_check = false
log_level = WARNING
`;
}

/** account-server.conf, container-server.conf or object-server.conf. */
export function backendConf(l: SwiftLayout, kind: "account" | "container" | "object"): string {
  return `${common(l, l[kind])}
[pipeline:main]
pipeline = ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}
`;
}

export function proxyConf(l: SwiftLayout): string {
  const [account, user] = S3_ACCESS_KEY.split(":");
  const filters = [
    "catch_errors",
    "gatekeeper",
    "healthcheck",
    "proxy_logging",
    "listing_formats",
    "copy",
    "slo",
    "dlo",
  ].map((f) => `[filter:${f.replace("proxy_", "proxy-")}]\nuse = egg:swift#${f}\n`).join("\n");
  return `${common(l, l.proxy)}
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = ${S3_REGION}

[filter:tempauth]
use = egg:swift#tempauth
user_${account}_${user} = ${S3_SECRET_KEY} .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${l.memcache}
set log_level = CRITICAL

${filters}`;
}

/**
 * All four servers in one Python process (one import of Swift, one process to
 * stop), with swift.conf read from our dir rather than /etc/swift. First it
 * checks the device directory takes user xattrs (Swift keeps object metadata
 * in them) and writes one-replica account/container/object rings holding the
 * single device. argv: dir, ports as JSON {account, container, object}. It
 * exits when its stdin closes.
 */
export const SERVE = `
import json, os, sys
from swift.common import utils, storage_policy
from swift.common.ring import RingBuilder
d, ports = sys.argv[1], json.loads(sys.argv[2])
utils.set_swift_dir(d)
storage_policy.reload_storage_policies()

dev = os.path.join(d, 'srv', 'd1')
os.makedirs(dev)
probe = os.path.join(dev, '.xattr-probe')
open(probe, 'w').close()
try:
    os.setxattr(probe, 'user.swift.probe', b'1')
except OSError as e:
    sys.exit('%s has no user xattr support (Swift needs it): %s' % (dev, e))
os.remove(probe)
for name, port in ports.items():
    b = RingBuilder(6, 1, 1)
    b.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1',
               'port': port, 'device': 'd1', 'weight': 1, 'meta': ''})
    b.rebalance()
    b.get_ring().save(os.path.join(d, name + '.ring.gz'))

# Exit when stdin closes: stop() closes it, and so does the death of the
# process that started us (no servers outlive their test).
import threading
def watch_stdin():
    while os.read(0, 4096):
        pass
    os._exit(0)
threading.Thread(target=watch_stdin, daemon=True).start()

utils.eventlet_monkey_patch()
import eventlet
from swift.common import wsgi
# run_server picks a fresh hub; four in one process must share this one
# (other threads, eventlet's tpool, still get their own).
eventlet.hubs.use_hub(wsgi.get_hub())
use_hub = eventlet.hubs.use_hub
def use_hub_once(*args):
    if not hasattr(eventlet.hubs._threadlocal, 'hub'):
        use_hub(*args)
eventlet.hubs.use_hub = use_hub_once
servers = []
for kind in ('account', 'container', 'object', 'proxy'):
    name = kind + '-server'
    conf = wsgi.appconfig(os.path.join(d, name + '.conf'), name=name)
    logger = utils.get_logger(conf, name, log_to_console=True, log_route=name)
    servers.append((conf, logger, wsgi.get_socket(conf)))
# In this order: once the proxy answers, the others have loaded.
for g in [eventlet.spawn(wsgi.run_server, *s) for s in servers]:
    g.wait()
`;
