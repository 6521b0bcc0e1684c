import assert from "node:assert/strict";
import { ByteInput, TextInput, type ValueReader } from "../../lib/formats/io.ts";
import { gunzipIfNeeded } from "../../lib/formats/detect.ts";
import { ZsonReader } from "../../lib/formats/zson/reader.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { JsonWriter } from "../../lib/formats/json/writer.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { detectZeek, ZeekReader } from "../../lib/formats/zeek/reader.ts";
import { ZeekWriter } from "../../lib/formats/zeek/writer.ts";
import { formatZeekValue } from "../../lib/formats/zeek/format.ts";
import { formatZeekTime, parseZeekTime } from "../../lib/formats/zeek/time.ts";
import { unescapeZeekBytes } from "../../lib/formats/zeek/escape.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import type { Value } from "../../lib/zed/value.ts";
import { TypeIP } from "../../lib/zed/types.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** An input of the given text delivered in chunks of at most `chunk` bytes. */
function chunkedInput(bytes: Uint8Array, chunk: number): ByteInput {
  const it = (async function* () {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.slice(i, i + chunk);
  })();
  return new ByteInput(it, "test");
}

function textInput(bytes: Uint8Array, chunk = 0): TextInput {
  if (chunk === 0) return new TextInput(ByteInput.fromBytes(bytes));
  return new TextInput(chunkedInput(bytes, chunk), chunk);
}

async function readAll(r: ValueReader): Promise<Value[]> {
  const out: Value[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) out.push(...b);
  return out;
}

/** Reads Zeek text; chunk > 0 feeds it in pieces of that many bytes. */
function readZeek(text: string, chunk = 0): Promise<Value[]> {
  return readAll(new ZeekReader(textInput(enc.encode(text), chunk)));
}

async function zeekToZson(text: string, chunk = 0): Promise<string> {
  return (await readZeek(text, chunk)).map((v) => formatZson(v.type, v.body) + "\n").join("");
}

function collector(): [(c: Uint8Array) => Promise<void>, () => string] {
  const parts: Uint8Array[] = [];
  return [(c) => {
    parts.push(c.slice());
    return Promise.resolve();
  }, () => parts.map((p) => dec.decode(p)).join("")];
}

/** Writes values as Zeek; the text written (also on failure) and the error, if any. */
async function writeZeek(values: Value[], batch = 1000): Promise<[string, unknown]> {
  const [sink, text] = collector();
  const w = new ZeekWriter(sink);
  let err: unknown = null;
  try {
    for (let i = 0; i < values.length; i += batch) await w.write(values.slice(i, i + batch));
  } catch (e) {
    err = e;
  }
  await w.end();
  return [text(), err];
}

function readZson(text: string): Promise<Value[]> {
  return readAll(new ZsonReader(textInput(enc.encode(text))));
}

interface Case {
  name: string;
  query?: string;
  input?: string;
  gzip?: string;
  format: "zeek" | "zson" | "zson4" | "json";
  output?: string;
  error?: string;
}

// The conformance vectors of zio/zeekio (plus zson-to-zeek and zeek-gz),
// from the reference's ztests.
const cases: Case[] = [
  {
    name: "zeek-gz",
    gzip:
      "H4sICCPt+V0AA3plZWsuaW4ubG9nAH2PXUsrMRCGr2d/xYG9UTjG/dT2stZiFb2xBRGVkGanbmS7CZnZRf+9abd+ICIJmZln3mTexIROecXW/3t8TcZRTMjyk8H/KMaN4ze5NthUcLArDqO4a7e6AR5FsVNcA1ETxTtEwASdqcBUwnrzLOvPzG0zj+QGtssc9OjJ2Ba0cTV60J3vEQjD6WWrNghB122wgkYRS9WgZ2jxlaXzlq22DSCxWjWG6iDSoS11rUwr18EFgW4MtgH95NStXlAzGKJuO3aQfdB9uW/2qjGV4uBShlHcURTzm8PwVRP8EXvTPoOqKg/OBndf2b71a1jZYP0X1If51j8M6Oln+deLQ4jSYpzko7I8yUVS5kVWwHQ9O7Muq1frq3v3clHOK0gTEfapGCdQpuM0h7IQWZ6I0akIF4oih+X1ok+zbZCz6fl8Jm8XE3l3uZzLyWwh02wkL6Y3cjGfZOUJHIGurdFIgn1HjELbDSwDrpndcSrSXfFtRe8oe/bwfQIAAA==",
    format: "zson",
    output:
      '{_path:"ssl",ts:2017-03-24T19:59:23.053424Z,uid:"CfEBop2hbfJYpjG5Hd",id:{orig_h:10.10.7.90,orig_p:51913(port=uint16),resp_h:54.230.87.24,resp_p:443(port)},version:"TLSv12",cipher:"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",curve:null(string),server_name:"choices.truste.com",resumed:true,last_alert:null(string),next_protocol:"http/1.1",established:true,cert_chain_fuids:null([string]),client_cert_chain_fuids:null([string]),subject:null(string),issuer:null(string),client_subject:null(string),client_issuer:null(string),validation_status:null(string)}\n',
  },
  {
    name: "close-date",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\ta\n#fields\tts\td\n#types\ttime\tdouble\n10.000000\t1\n#close  2019-10-10-08-30-35\n",
    format: "zson",
    output: '{_path:"a",ts:1970-01-01T00:00:10Z,d:1.}\n',
  },
  {
    name: "close-nodate",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\ta\n#fields\tts\td\n#types\ttime\tdouble\n10.000000\t1\n#close\n",
    format: "zson",
    output: '{_path:"a",ts:1970-01-01T00:00:10Z,d:1.}\n',
  },
  {
    name: "complex-array-incompat",
    input: '{a:[{s:"foo"}]}\n',
    format: "zeek",
    error: "type cannot be represented in zeek format",
  },
  {
    name: "duration",
    input:
      '{_path:"conn",ts:2001-09-09T01:46:40Z,d:31y259d1h46m40s}\n{_path:"conn",ts:1970-01-01T00:00:01Z,d:-1s}\n{_path:"conn",ts:1970-01-01T00:00:01Z,d:1s}\n{_path:"conn",ts:1973-07-23T18:26:40Z,d:3y204d18h26m40s}\n{_path:"conn",ts:1970-01-01T00:00:00.00000001Z,d:10ns}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\tts\td\n#types\ttime\tinterval\n1000000000.000000\t1000000000.000000\n1.000000\t-1.000000\n1.000000\t1.000000\n112300000.000000\t112300000.000000\n0.000000010\t0.000000010\n",
  },
  {
    name: "empty-close",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tssl\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tversion\tcipher\tcurve\tserver_name\tresumed\tlast_alert\tnext_protocol\testablished\tcert_chain_fuids\tclient_cert_chain_fuids\tsubject\tissuer\tclient_subject\tclient_issuer\tvalidation_status\n#types\ttime\tstring\taddr\tport\taddr\tport\tstring\tstring\tstring\tstring\tbool\tstring\tstring\tbool\tvector[string]\tvector[string]\tstring\tstring\tstring\tstring\tstring\n#close  2019-10-10-08-30-35\n",
    format: "zeek",
    output: "",
  },
  {
    name: "empty",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tssl\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tversion\tcipher\tcurve\tserver_name\tresumed\tlast_alert\tnext_protocol\testablished\tcert_chain_fuids\tclient_cert_chain_fuids\tsubject\tissuer\tclient_subject\tclient_issuer\tvalidation_status\n#types\ttime\tstring\taddr\tport\taddr\tport\tstring\tstring\tstring\tstring\tbool\tstring\tstring\tbool\tvector[string]\tvector[string]\tstring\tstring\tstring\tstring\tstring",
    format: "zson",
    output: "",
  },
  {
    name: "flatten",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tis_orig\n#types\ttime\tstring\taddr\tport\taddr\tport\tbool\n1425565514.419939\tCogZFI3py5JsFZGik\t192.168.1.1\t80\t192.168.1.2\t5353\tF\n",
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tis_orig\n#types\ttime\tstring\taddr\tport\taddr\tport\tbool\n1425565514.419939\tCogZFI3py5JsFZGik\t192.168.1.1\t80\t192.168.1.2\t5353\tF\n",
  },
  {
    name: "multizeek",
    input:
      "#separator \\x09\n#empty_field\t(empty)\n#unset_field\t-\n#path\ta\n#fields\tts\td\n#types\ttime\tdouble\n10.0\t1.0\n#path\tb\n#fields\tts\td\n#types\ttime\tint\n11.0\t1\n",
    format: "zson",
    output: '{_path:"a",ts:1970-01-01T00:00:10Z,d:1.}\n{_path:"b",ts:1970-01-01T00:00:11Z,d:1}\n',
  },
  {
    name: "multizng",
    input: '{_path:"a",ts:1970-01-01T00:00:10Z,d:1.}\n{_path:"b",ts:1970-01-01T00:00:11Z,d:1}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\ta\n#fields\tts\td\n#types\ttime\tdouble\n10.000000\t1\n#path\tb\n#fields\tts\td\n#types\ttime\tint\n11.000000\t1\n",
  },
  {
    name: "nested-2",
    input:
      '{_path:"smb_cmd",ts:2009-11-19T01:41:47.85978Z,uid:"Chjxid42dvvzIzdeG8",id:{orig_h:192.168.1.102,orig_p:1076(port=uint16),resp_h:192.168.1.1,resp_p:139(port)},referenced_file:{ts:2009-11-19T01:41:47.85978Z,uid:"Chjxid42dvvzIzdeG8",id:{orig_h:192.168.1.102,orig_p:1076(port),resp_h:192.168.1.1,resp_p:139(port)},fuid:"ZYjxid42dvvzIzdeG8"}}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tsmb_cmd\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\treferenced_file.ts\treferenced_file.uid\treferenced_file.id.orig_h\treferenced_file.id.orig_p\treferenced_file.id.resp_h\treferenced_file.id.resp_p\treferenced_file.fuid\n#types\ttime\tstring\taddr\tport\taddr\tport\ttime\tstring\taddr\tport\taddr\tport\tstring\n1258594907.859780\tChjxid42dvvzIzdeG8\t192.168.1.102\t1076\t192.168.1.1\t139\t1258594907.859780\tChjxid42dvvzIzdeG8\t192.168.1.102\t1076\t192.168.1.1\t139\tZYjxid42dvvzIzdeG8\n",
  },
  {
    name: "nested-record-named",
    input: "{a:{b:1}(=record_named)}\n",
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\ta.b\n#types\tint\n1\n",
  },
  {
    name: "nested-record-with-nonadjacent-fields",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#open\t2020-08-24-00-25-01\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tservice\tduration\torig_bytes\tresp_bytes\tconn_state\tlocal_orig\tlocal_resp\tmissed_bytes\thistory\torig_pkts\torig_ip_bytes\tresp_pkts\tresp_ip_bytes\ttunnel_parents\torig_cc\tresp_cc\tid.orig_h_name.src\tid.orig_h_name.vals\tid.resp_h_name.src\tid.resp_h_name.vals\n#types\ttime\tstring\taddr\tport\taddr\tport\tenum\tstring\tinterval\tcount\tcount\tstring\tbool\tbool\tcount\tstring\tcount\tcount\tcount\tcount\tset[string]\tstring\tstring\tstring\tset[string]\tstring\tset[string]\n1598243094.015046\tCWjxkd3jpmxuvN21uj\t10.124.2.117\t61927\t10.70.70.70\t8080\ttcp\t-\t0.002716\t0\t77\tSF\tF\tF\t0\tFdfR\t3\t120\t2\t157\t-\t-\t-\t-\t-\tSSL_SNI\toneclient.sfx.ms,bats.video.yahoo.com,ctldl.windowsupdate.com,tapestry.tapad.com,www.gstatic.com,www.google.com:443,c.clicktale.net,eb2.3lift.com:443,13-237-209-96.expertcity.com:443,pr-bh.ybp.yahoo.com:443,clientservices.googleapis.com:443,js-sec.indexww.com:443,collect.tealiumiq.com,www.pacast.com,oneclient.sfx.ms:443,clientservices.googleapis.com,bats.video.yahoo.com:443,www.youtube.com\n",
    format: "zson",
    output:
      '{_path:"conn",ts:2020-08-24T04:24:54.015046Z,uid:"CWjxkd3jpmxuvN21uj",id:{orig_h:10.124.2.117,orig_p:61927(port=uint16),resp_h:10.70.70.70,resp_p:8080(port),orig_h_name:{src:null(string),vals:null(|[string]|)},resp_h_name:{src:"SSL_SNI",vals:|["www.pacast.com","c.clicktale.net","www.gstatic.com","www.youtube.com","oneclient.sfx.ms","eb2.3lift.com:443","tapestry.tapad.com","www.google.com:443","bats.video.yahoo.com","oneclient.sfx.ms:443","collect.tealiumiq.com","js-sec.indexww.com:443","ctldl.windowsupdate.com","pr-bh.ybp.yahoo.com:443","bats.video.yahoo.com:443","clientservices.googleapis.com","13-237-209-96.expertcity.com:443","clientservices.googleapis.com:443"]|}},proto:"tcp"(=zenum),service:null(string),duration:2.716ms,orig_bytes:0(uint64),resp_bytes:77(uint64),conn_state:"SF",local_orig:false,local_resp:false,missed_bytes:0(uint64),history:"FdfR",orig_pkts:3(uint64),orig_ip_bytes:120(uint64),resp_pkts:2(uint64),resp_ip_bytes:157(uint64),tunnel_parents:null(|[string]|),orig_cc:null(string),resp_cc:null(string)}\n',
  },
  {
    name: "nested",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tsmb_cmd\n#open\t2018-08-17-16-04-19\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\treferenced_file.ts\treferenced_file.uid\treferenced_file.id.orig_h\treferenced_file.id.orig_p\treferenced_file.id.resp_h\treferenced_file.id.resp_p\treferenced_file.fuid\n#types\ttime\tstring\taddr\tport\taddr\tport\ttime\tstring\taddr\tport\taddr\tport\tstring\n1258594907.859780\tChjxid42dvvzIzdeG8\t192.168.1.102\t1076\t192.168.1.1\t139\t1258594907.859780\tChjxid42dvvzIzdeG8\t192.168.1.102\t1076\t192.168.1.1\t139\tZYjxid42dvvzIzdeG8\n#close\t2018-08-17-16-04-30\n",
    format: "zson",
    output:
      '{_path:"smb_cmd",ts:2009-11-19T01:41:47.85978Z,uid:"Chjxid42dvvzIzdeG8",id:{orig_h:192.168.1.102,orig_p:1076(port=uint16),resp_h:192.168.1.1,resp_p:139(port)},referenced_file:{ts:2009-11-19T01:41:47.85978Z,uid:"Chjxid42dvvzIzdeG8",id:{orig_h:192.168.1.102,orig_p:1076(port),resp_h:192.168.1.1,resp_p:139(port)},fuid:"ZYjxid42dvvzIzdeG8"}}\n',
  },
  {
    name: "no-path",
    input:
      "#fields foo\n#types string\n😁\n#fields foo\n#path magic\n😁\n#fields foo\n#path -\n😁\n",
    format: "zson",
    output: '{foo:"😁"}\n{_path:"magic",foo:"😁"}\n{foo:"😁"}\n',
  },
  {
    name: "path",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\t_path\tfoo\n#types\tstring\tstring\nconn\tyes\n",
    format: "zson",
    output: '{_path:"conn",foo:"yes"}\n',
  },
  {
    name: "path2",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\t_path\tfoo\n#types\tstring\tstring\nnotconn\tyes\n",
    format: "zson",
    output: '{_path:"notconn",foo:"yes"}\n',
  },
  {
    name: "read-escaped-backslash",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tBackslash\n#fields\tmy_str\n#types\tstring\nco\\\\m\n",
    format: "zson",
    output: '{_path:"Backslash",my_str:"co\\\\m"}\n',
  },
  {
    name: "shared-context-bug-2",
    query: "cut id | put id2:=id | cut id.orig_h",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\ttunnel_parents\n#types\taddr\tport\taddr\tport\tset[string]\n10.164.94.120\t39681\t10.47.3.155\t3389\t-\n",
    format: "zson",
    output: "{id:{orig_h:10.164.94.120}}\n",
  },
  {
    name: "shared-context-bug",
    query: "cut id | put id2:=id.orig_h | drop id.orig_h",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\ttunnel_parents\n#types\taddr\tport\taddr\tport\tset[string]\n10.164.94.120\t39681\t10.47.3.155\t3389\t-\n",
    format: "zson",
    output:
      "{id:{orig_p:39681(port=uint16),resp_h:10.47.3.155,resp_p:3389(port)},id2:10.164.94.120}\n",
  },
  {
    name: "string-set",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tf\n#types\tset[string]\n-\n(empty)\n\ndup,dup\n,\na,z\nz,a\n-,z,a,,dup,dup\n",
    format: "zson",
    output:
      '{f:null(|[string]|)}\n{f:|[]|(|[string]|)}\n{f:|["dup"]|}\n{f:|[""]|}\n{f:|["a","z"]|}\n{f:|["a","z"]|}\n{f:|[null(string),"","a","z","dup"]|}\n',
  },
  {
    name: "trailing-whitespace",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tunknown_mime_type_discovery\n#open\t2020-04-10-18-15-32\n#fields\tts\tfid\tbof\n#types\ttime\tstring\tstring\n1425634708.454143\tFTBt2P3wJBdHGKpZwc\t \n",
    format: "zson",
    output:
      '{_path:"unknown_mime_type_discovery",ts:2015-03-06T09:38:28.454143Z,fid:"FTBt2P3wJBdHGKpZwc",bof:" "}\n',
  },
  {
    name: "ts-in-first-column",
    query: "count() by every(24h)",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tts\n#types\ttime\n1425565514.419939\n",
    format: "zson",
    output: "{ts:2015-03-05T00:00:00Z,count:1(uint64)}\n",
  },
  {
    name: "union-incompat",
    input: '{u:"foo"((string,int32))}\n',
    format: "zeek",
    error: "type cannot be represented in zeek format",
  },
  {
    name: "unset-in-array",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tArrayUnsets\n#open\t2020-01-14-19-11-57\n#fields\tvector_int\n#types\tvector[int]\n123,-,456\n(empty)\n-\n#close\t2020-01-14-20-00-00\n",
    format: "zson",
    output:
      '{_path:"ArrayUnsets",vector_int:[123,null(int64),456]}\n{_path:"ArrayUnsets",vector_int:[]([int64])}\n{_path:"ArrayUnsets",vector_int:null([int64])}\n',
  },
  {
    name: "unset-in-record",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tArrayGap\n#open\t2020-01-14-19-11-57\n#fields\trec.a\trec.b\n#types\tint\tint\n-\t-\n#close\t2020-01-14-20-00-00\n",
    format: "zson",
    output: '{_path:"ArrayGap",rec:{a:null(int64),b:null(int64)}}\n',
  },
  {
    name: "unset-time",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tp\n#open\t2020-01-14-19-11-57\n#fields\tts\tuid\n#types\ttime\tstring\n-\te3ad37edfdf\n#close\t2020-01-14-20-00-00\n",
    format: "zson",
    output: '{_path:"p",ts:null(time),uid:"e3ad37edfdf"}\n',
  },
  {
    name: "utf8",
    input:
      '{_path:"",foo:"😁"}\n{_path:"magic",foo:"😁"}\n{_path:"",foo:"foo😁bar\\\\x00\\\\x01baz"}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tfoo\n#types\tstring\n😁\n#path\tmagic\n😁\n#path\t-\nfoo😁bar\\\\x00\\\\x01baz\n",
  },
  {
    name: "zeek-utf8-json",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\ts\n#types\tstring\nstring\nstring\\n\nstring\\x82\n\\x07\\xd4\\xb7o\na\n\\b\\f\\n\\r\\t\\x00\\x15\n\\xc3\\xb1\n\\xc3\\x28\n\\xc0\\x81\n\\xc1\\x81\n\\xc2\\xcf\n\\xa0\\xa1\n\\xe2\\x82\\xa1\n\\xe0\\xa3\\xa1\n\\xe0\\x80\\xa1\n\\xe2\\x28\\xa1\n\\xed\\xa0\\xa1\n\\xe2\\x82\\x28\n\\xf0\\x90\\x8c\\xbc\n\\xf1\\x80\\x8c\\xbc\n\\xf4\\x80\\x8c\\xbc\n\\xf0\\x80\\x8c\\xbc\n\\xf2\\x28\\x8c\\xbc\n\\xf4\\x90\\x8c\\xbc\n\\xf0\\x90\\x28\\xbc\n\\xf0\\x28\\x8c\\x28\n\\xf4\\x80\\x8c\n\\xf0\n\\xee\\x8b\\xa0\n\\xc3\\xb1\\xc0\\x81\n",
    format: "zson",
    output:
      '{s:"string"}\n{s:"string\\n"}\n{s:"string\\\\x82"}\n{s:"\\u0007Էo"}\n{s:"a"}\n{s:"\\b\\f\\n\\r\\t\\u0000\\u0015"}\n{s:"ñ"}\n{s:"\\\\xc3("}\n{s:"\\\\xc0\\\\x81"}\n{s:"\\\\xc1\\\\x81"}\n{s:"\\\\xc2\\\\xcf"}\n{s:"\\\\xa0\\\\xa1"}\n{s:"₡"}\n{s:"࣡"}\n{s:"\\\\xe0\\\\x80\\\\xa1"}\n{s:"\\\\xe2(\\\\xa1"}\n{s:"\\\\xed\\\\xa0\\\\xa1"}\n{s:"\\\\xe2\\\\x82("}\n{s:"𐌼"}\n{s:"񀌼"}\n{s:"􀌼"}\n{s:"\\\\xf0\\\\x80\\\\x8c\\\\xbc"}\n{s:"\\\\xf2(\\\\x8c\\\\xbc"}\n{s:"\\\\xf4\\\\x90\\\\x8c\\\\xbc"}\n{s:"\\\\xf0\\\\x90(\\\\xbc"}\n{s:"\\\\xf0(\\\\x8c("}\n{s:"\\\\xf4\\\\x80\\\\x8c"}\n{s:"\\\\xf0"}\n{s:""}\n{s:"ñ\\\\xc0\\\\x81"}\n',
  },
  {
    name: "zng-types",
    input:
      "{b:0(uint8),i16:0(int16),u16:0(uint16),i32:0(int32),u32:0(uint32),i64:0,u64:0(uint64),a:10.1.2.3,n:10.0.0.0/8,d:16m40s}\n",
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tb\ti16\tu16\ti32\tu32\ti64\tu64\ta\tn\td\n#types\tint\tint\tint\tint\tint\tint\tcount\taddr\tsubnet\tinterval\n0\t0\t0\t0\t0\t0\t0\t10.1.2.3\t10.0.0.0/8\t1000.000000\n",
  },
  {
    name: "zson-to-zeek",
    input:
      '{\n    my_bool: true,\n    my_count: 123 (uint64),\n    my_int: 456,\n    my_double: 123.456,\n    my_time: 2020-06-18T17:42:31.123456Z,\n    my_interval: 2m3.456s,\n    my_printable_string: "smile😁smile",\n    my_bytes_string: "\\t\\u0007\\u0004",\n    my_port: 80 (port=uint16),\n    my_addr: 127.0.0.1,\n    my_subnet: 10.0.0.0/8,\n    my_enum: "tcp" (=zenum),\n    my_set: |[\n        "a",\n        "in",\n        "set",\n        "things"\n    ]|,\n    my_vector: [\n        "order",\n        "is",\n        "important"\n    ],\n    my_record: {\n        name: "Jeanne",\n        age: 122 (uint64)\n    }\n}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tmy_bool\tmy_count\tmy_int\tmy_double\tmy_time\tmy_interval\tmy_printable_string\tmy_bytes_string\tmy_port\tmy_addr\tmy_subnet\tmy_enum\tmy_set\tmy_vector\tmy_record.name\tmy_record.age\n#types\tbool\tcount\tint\tdouble\ttime\tinterval\tstring\tstring\tport\taddr\tsubnet\tenum\tset[string]\tvector[string]\tstring\tcount\nT\t123\t456\t123.456\t1592502151.123456\t123.456000\tsmile😁smile\t\\x09\\x07\\x04\t80\t127.0.0.1\t10.0.0.0/8\ttcp\ta,in,set,things\torder,is,important\tJeanne\t122\n",
  },
  // Other Zeek ztests of the reference (not in the conformance set).
  {
    name: "types",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\ts\te\tse\tvi\tvs\tp\tc\ta\tn\ti\tt\tb\n#types\tstring\tenum\tset[enum]\tvector[int]\tvector[string]\tport\tcount\taddr\tsubnet\tinterval\ttime\tbool\nfoo\tbar\ta,b,c\t1,2,3\ta,b,c\t80\t1000\t10.5.100.20\t10.0.0.0/8\t1000.000000\t1582404982.000000\tT\n",
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\ts\te\tse\tvi\tvs\tp\tc\ta\tn\ti\tt\tb\n#types\tstring\tenum\tset[enum]\tvector[int]\tvector[string]\tport\tcount\taddr\tsubnet\tinterval\ttime\tbool\nfoo\tbar\ta,b,c\t1,2,3\ta,b,c\t80\t1000\t10.5.100.20\t10.0.0.0/8\t1000.000000\t1582404982.000000\tT\n",
  },
  {
    name: "time",
    input:
      '{_path:"conn",ts:2015-03-05T14:25:14.419939Z,ts2:1970-01-01T00:00:01Z}\n{_path:"conn",ts:2015-03-05T14:25:14.4199391Z,ts2:1970-01-01T00:00:01Z}\n{_path:"conn",ts:2015-03-05T14:25:14.419939Z,ts2:1970-01-01T00:00:01Z}\n{_path:"conn",ts:1924-10-29T09:34:45.580061Z,ts2:1970-01-01T00:00:01Z}\n{_path:"conn",ts:null(time),ts2:null(time)}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\tts\tts2\n#types\ttime\ttime\n1425565514.419939\t1.000000\n1425565514.419939100\t1.000000\n1425565514.419939\t1.000000\n-1425565514.419939\t1.000000\n-\t-\n",
  },
  {
    name: "zeek-format-test",
    input:
      '{s:"foo"}\n{s:null(string)}\n{s:"-"}\n{s:"--"}\n{s:""}\n{s:"(empty)"}\n{s:"\\\\"}\n{s:"\\n\\t"}\n{s:"a,b"}\n{s:"[hello"}\n{s:"hello["}\n{s:";"}\n{s:null(|[string]|)}\n{s:|[]|(|[string]|)}\n{s:|[""]|}\n{s:|["(empty)"]|}\n{s:|["abc","xyz"]|}\n{s:|["a,b"]|}\n{s:null([string])}\n{s:[]([string])}\n{s:[""]}\n{s:["(empty)"]}\n{s:["abc","xyz"]}\n{s:["a,b"]}\n',
    format: "zeek",
    output:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\ts\n#types\tstring\nfoo\n-\n\\x2d\n--\n\n\\x28empty)\n\\\\\n\\x0a\\x09\na,b\n[hello\nhello[\n;\n#fields\ts\n#types\tset[string]\n-\n(empty)\n\n\\x28empty)\nabc,xyz\na\\x2cb\n#fields\ts\n#types\tvector[string]\n-\n(empty)\n\n\\x28empty)\nabc,xyz\na\\x2cb\n",
  },
  {
    name: "format",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tconn\n#fields\tfoo\tbar\n#types\tstring\tstring\nkey1 value1\tkey2 value1\nkey1 value2\tkey2 value2\n",
    format: "json",
    output:
      '{"_path":"conn","foo":"key1 value1","bar":"key2 value1"}\n{"_path":"conn","foo":"key1 value2","bar":"key2 value2"}\n',
  },
  {
    name: "zeek",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tssl\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tversion\tcipher\tcurve\tserver_name\tresumed\tlast_alert\tnext_protocol\testablished\tcert_chain_fuids\tclient_cert_chain_fuids\tsubject\tissuer\tclient_subject\tclient_issuer\tvalidation_status\n#types\ttime\tstring\taddr\tport\taddr\tport\tstring\tstring\tstring\tstring\tbool\tstring\tstring\tbool\tvector[string]\tvector[string]\tstring\tstring\tstring\tstring\tstring\n1490385563.053424\tCfEBop2hbfJYpjG5Hd\t10.10.7.90\t51913\t54.230.87.24\t443\tTLSv12\tTLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\t-\tchoices.truste.com\tT\t-\thttp/1.1\tT\t-\t-\t-\t-\t-\t-\t-\n",
    format: "zson",
    output:
      '{_path:"ssl",ts:2017-03-24T19:59:23.053424Z,uid:"CfEBop2hbfJYpjG5Hd",id:{orig_h:10.10.7.90,orig_p:51913(port=uint16),resp_h:54.230.87.24,resp_p:443(port)},version:"TLSv12",cipher:"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",curve:null(string),server_name:"choices.truste.com",resumed:true,last_alert:null(string),next_protocol:"http/1.1",established:true,cert_chain_fuids:null([string]),client_cert_chain_fuids:null([string]),subject:null(string),issuer:null(string),client_subject:null(string),client_issuer:null(string),validation_status:null(string)}\n',
  },
  {
    name: "zeek-nonewline",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#path\tssl\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tversion\tcipher\tcurve\tserver_name\tresumed\tlast_alert\tnext_protocol\testablished\tcert_chain_fuids\tclient_cert_chain_fuids\tsubject\tissuer\tclient_subject\tclient_issuer\tvalidation_status\n#types\ttime\tstring\taddr\tport\taddr\tport\tstring\tstring\tstring\tstring\tbool\tstring\tstring\tbool\tvector[string]\tvector[string]\tstring\tstring\tstring\tstring\tstring\n1490385563.053424\tCfEBop2hbfJYpjG5Hd\t10.10.7.90\t51913\t54.230.87.24\t443\tTLSv12\tTLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\t-\tchoices.truste.com\tT\t-\thttp/1.1\tT\t-\t-\t-\t-\t-\t-\t-",
    format: "zson",
    output:
      '{_path:"ssl",ts:2017-03-24T19:59:23.053424Z,uid:"CfEBop2hbfJYpjG5Hd",id:{orig_h:10.10.7.90,orig_p:51913(port=uint16),resp_h:54.230.87.24,resp_p:443(port)},version:"TLSv12",cipher:"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",curve:null(string),server_name:"choices.truste.com",resumed:true,last_alert:null(string),next_protocol:"http/1.1",established:true,cert_chain_fuids:null([string]),client_cert_chain_fuids:null([string]),subject:null(string),issuer:null(string),client_subject:null(string),client_issuer:null(string),validation_status:null(string)}\n',
  },
  {
    name: "zeek-to-zson",
    input:
      "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tmy_bool\tmy_count\tmy_int\tmy_double\tmy_time\tmy_interval\tmy_printable_string\tmy_bytes_string\tmy_port\tmy_addr\tmy_subnet\tmy_enum\tmy_set\tmy_vector\tmy_record.name\tmy_record.age\n#types\tbool\tcount\tint\tdouble\ttime\tinterval\tstring\tstring\tport\taddr\tsubnet\tenum\tset[string]\tvector[string]\tstring\tcount\nT\t123\t456\t123.4560\t1592502151.123456\t123.456\tsmile\\xf0\\x9f\\x98\\x81smile\t\\x09\\x07\\x04\t80\t127.0.0.1\t10.0.0.0/8\ttcp\tthings,in,a,set\torder,is,important\tJeanne\t122\n",
    format: "zson4",
    output:
      '{\n    my_bool: true,\n    my_count: 123 (uint64),\n    my_int: 456,\n    my_double: 123.456,\n    my_time: 2020-06-18T17:42:31.123456Z,\n    my_interval: 2m3.456s,\n    my_printable_string: "smile😁smile",\n    my_bytes_string: "\\t\\u0007\\u0004",\n    my_port: 80 (port=uint16),\n    my_addr: 127.0.0.1,\n    my_subnet: 10.0.0.0/8,\n    my_enum: "tcp" (=zenum),\n    my_set: |[\n        "a",\n        "in",\n        "set",\n        "things"\n    ]|,\n    my_vector: [\n        "order",\n        "is",\n        "important"\n    ],\n    my_record: {\n        name: "Jeanne",\n        age: 122 (uint64)\n    }\n}\n',
  },
];

async function openCase(c: Case, chunk: number): Promise<ValueReader> {
  if (c.gzip !== undefined) {
    const raw = Uint8Array.from(atob(c.gzip), (ch) => ch.charCodeAt(0));
    const input = await gunzipIfNeeded(ByteInput.fromBytes(raw));
    return new ZeekReader(new TextInput(input));
  }
  const bytes = enc.encode(c.input!);
  if (c.input!.startsWith("#")) return new ZeekReader(textInput(bytes, chunk));
  return new ZsonReader(textInput(bytes, chunk));
}

async function runCase(c: Case, chunk: number): Promise<[string, unknown]> {
  const reader = await openCase(c, chunk);
  const [sink, text] = collector();
  const writer = c.format === "zeek"
    ? new ZeekWriter(sink)
    : c.format === "json"
    ? new JsonWriter(sink)
    : new ZsonWriter(sink, { pretty: c.format === "zson4" ? 4 : 0 });
  let err: unknown = null;
  try {
    await runQuery(compileQuery(c.query ?? "*"), [reader], writer);
  } catch (e) {
    err = e;
  }
  return [text(), err];
}

for (const c of cases) {
  for (const chunk of [0, 7]) {
    Deno.test(`zeek conformance: ${c.name}${chunk ? " (chunked)" : ""}`, async () => {
      const [out, err] = await runCase(c, chunk);
      if (c.error !== undefined) {
        assert.ok(err instanceof Error, "expected an error");
        assert.match(err.message, new RegExp(c.error));
      } else if (err !== null) {
        throw err;
      }
      if (c.output !== undefined) assert.equal(out, c.output);
    });
  }
}

const header = "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n";

Deno.test("zeek detection reads one record, accepts empty input and reports line errors", () => {
  assert.deepEqual(detectZeek("", true), { ok: true });
  assert.deepEqual(detectZeek("Garbage!\n", true), {
    ok: false,
    error: "line 1: bad types/fields definition in zeek header",
  });
  assert.deepEqual(detectZeek('{"a":1}\n', false), {
    ok: false,
    error: "line 1: bad types/fields definition in zeek header",
  });
  // Headers alone: the record may follow; a partial line needs more text.
  assert.deepEqual(detectZeek(header, false), { ok: "more" });
  assert.deepEqual(detectZeek(header, true), { ok: true });
  assert.deepEqual(detectZeek(header + "#fields\ta\n#types\tint\n1", false), { ok: "more" });
  assert.deepEqual(detectZeek(header + "#fields\ta\n#types\tint\n1\nx\n", false), { ok: true });
  assert.deepEqual(detectZeek(header + "#fields\ta\n#types\tint\nx\n", false), {
    ok: false,
    error: 'line 7: strconv.ParseInt: parsing "x": invalid syntax',
  });
  // A last line of one byte counts as blank, as in the reference's scanner.
  assert.deepEqual(detectZeek("x", true), { ok: true });
  assert.deepEqual(detectZeek("{a:1}\n", true).ok, false);
});

async function readError(text: string): Promise<[string[], string]> {
  const r = new ZeekReader(textInput(enc.encode(text)));
  const got: string[] = [];
  try {
    for (let b = await r.read(); b !== null; b = await r.read()) {
      for (const v of b) got.push(formatZson(v.type, v.body));
    }
  } catch (e) {
    return [got, (e as Error).message];
  }
  return [got, ""];
}

Deno.test("zeek reader errors carry the reference's texts and line numbers", async () => {
  const h = header + "#fields\ta\tb\n#types\tint\tcount\n";
  const cases: [string, string][] = [
    [h + "1\t2\t3\n", "line 7: too many values"],
    [h + "1\n", "line 7: too few values"],
    [h + "\n\n1\t-1\n", 'line 9: strconv.ParseUint: parsing "-1": invalid syntax'],
    [
      h + "99999999999999999999\t1\n",
      'line 7: strconv.ParseInt: parsing "99999999999999999999": value out of range',
    ],
    [header + "#fields\tt\n#types\ttime\nabc\n", 'line 7: invalid time format: "abc"'],
    [
      header + "#fields\tb\n#types\tbool\nyes\n",
      'line 7: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    [
      header + "#fields\tp\n#types\tport\n70000\n",
      'line 7: strconv.ParseUint: parsing "70000": value out of range',
    ],
    [
      header + "#fields\ta\n#types\taddr\n1.2.3\n",
      'line 7: ParseAddr("1.2.3"): IPv4 address too short',
    ],
    [header + "#fields\ta\n#types\taddr\nhost\n", 'line 7: ParseAddr("host"): unable to parse IP'],
    [
      header + "#fields\ta\n#types\taddr\n1::2::3\n",
      'line 7: ParseAddr("1::2::3"): multiple :: in address (at ":3")',
    ],
    [
      header + "#fields\ta\n#types\taddr\n::ffff:01.2.3.4\n",
      'line 7: ParseAddr("::ffff:01.2.3.4"): ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero (at "01.2.3.4")',
    ],
    [header + "#fields\tn\n#types\tsubnet\n10.0.0.0\n", "line 7: invalid CIDR address: 10.0.0.0"],
    [
      header + "#fields\td\n#types\tdouble\n1.5x\n",
      'line 7: strconv.ParseFloat: parsing "1.5x": invalid syntax',
    ],
    [header + "#fields\ta\n#types\ttable[string]\n", "line 6: unknown type: table[string]"],
    [header + "#fields\ta\n", ""],
    [header + "#fields\ta\n1\n", "line 6: bad types/fields definition in zeek header"],
    [header + "#types\tint\n1\n", "line 6: bad types/fields definition in zeek header"],
    [
      "#empty_field none\n",
      "line 1: encountered bad header field #empty_field (non-standard value 'none') parsing zeek log",
    ],
    ["#separator \\x09 x\n", "line 1: encountered bad header field separator parsing zeek log"],
    [header + "#fields\n", "line 5: encountered bad header field fields parsing zeek log"],
    [header + "#fields\ta\ta.b\n#types\tint\tint\n1\t2\n", 'line 7: duplicate field: "a"'],
  ];
  for (const [text, msg] of cases) assert.equal((await readError(text))[1], msg, text);
});

Deno.test("zeek reader delivers the records before a bad line", async () => {
  const text = header + "#fields\ta\n#types\tint\n1\n2\nx\n3\n";
  const [got, err] = await readError(text);
  assert.deepEqual(got, ["{a:1}", "{a:2}"]);
  assert.equal(err, 'line 9: strconv.ParseInt: parsing "x": invalid syntax');
});

Deno.test("zeek reader handles CRLF, blank lines and directives changing mid-file", async () => {
  const crlf = (header + "#path\ta\n#fields\tts\ti\n#types\ttime\tint\n10.000000\t1\n\n")
    .replaceAll("\n", "\r\n");
  assert.equal(await zeekToZson(crlf), '{_path:"a",ts:1970-01-01T00:00:10Z,i:1}\n');
  // A new separator applies to later directives; records always split on tabs.
  const sep = "#fields a b\n#types int string\n#separator \\x7c\n#fields|x|y\n1\thi\n";
  assert.equal(await zeekToZson(sep), '{x:1,y:"hi"}\n');
  // #path alone keeps the record type: a path added earlier stays, none is added later.
  const path = header + "#fields\ta\n#types\tint\n1\n#path\tp\n2\n#fields\ta\n3\n#path\tq\n4\n";
  assert.equal(await zeekToZson(path), '{a:1}\n{a:2}\n{_path:"p",a:3}\n{_path:"q",a:4}\n');
  // Concatenated logs with different columns.
  const two = header + "#fields\ta\n#types\tint\n1\n" + header + "#fields\tb\n#types\tstring\nx\n";
  assert.equal(await zeekToZson(two), '{a:1}\n{b:"x"}\n');
});

Deno.test("zeek reader gathers nested record columns as the reference does", async () => {
  const fields = ["a", "nest1.a", "nest1.b", "b", "nest2.y", "nest1.nestnest.c", "nest3.z"];
  const text = header + "#fields\t" + fields.join("\t") + "\n#types" + "\tint".repeat(7) +
    "\n1\t2\t3\t4\t5\t6\t7\n";
  assert.equal(
    await zeekToZson(text),
    "{a:1,nest1:{a:2,b:3,nestnest:{c:6}},b:4,nest2:{y:5},nest3:{z:7}}\n",
  );
});

Deno.test("zeek reader converts every Zeek type", async () => {
  const text = header +
    "#fields\ts\te\tse\tvi\tvs\tp\tc\ta\tn\ti\tt\tb\td\tv6\n" +
    "#types\tstring\tenum\tset[string]\tvector[int]\tvector[string]\tport\tcount\taddr\tsubnet" +
    "\tinterval\ttime\tbool\tdouble\taddr\n" +
    "a\\x2cb\\\\\tbar\tc,a,b,a\t1,-,3\t(empty)\t80\t1000\t10.5.100.20\t10.1.0.0/8\t-1.5\t1e9\tT\t1e3\t::1\n";
  assert.equal(
    await zeekToZson(text),
    '{s:"a,b\\\\",e:"bar"(=zenum),se:|["a","b","c"]|,vi:[1,null(int64),3],' +
      "vs:[]([string]),p:80(port=uint16),c:1000(uint64),a:10.5.100.20,n:10.0.0.0/8,i:-1.5s," +
      "t:2001-09-09T01:46:40Z,b:true,d:1000.,v6:::1}\n",
  );
});

Deno.test("zeek reader works across small chunks and batch boundaries", async () => {
  let text = header + "#path\tconn\n#fields\tts\tid.h\tid.p\n#types\ttime\taddr\tport\n";
  const n = 2500;
  for (let i = 0; i < n; i++) text += `${1425565514 + i}.419939\t10.0.0.${i % 256}\t${i}\n`;
  for (const chunk of [0, 5, 4096]) {
    const vals = await readZeek(text, chunk);
    assert.equal(vals.length, n);
    const last = vals[n - 1];
    assert.equal(
      formatZson(last.type, last.body),
      '{_path:"conn",ts:2015-03-05T15:06:53.419939Z,id:{h:10.0.0.195,p:2499(port=uint16)}}',
    );
  }
});

Deno.test("zeek time text parses and prints exactly", () => {
  const parsed: [string, number | bigint][] = [
    ["0", 0],
    ["1425565514.419939", 1425565514419939000n],
    ["001425565514.419939", 1425565514419939000n],
    ["-1425565514.419939", -1425565514419939000n],
    ["1e9", 1000000000000000000n],
    ["1.123e8", 112300000000000000n],
    ["1.123e-5", 11230],
    ["10.5", 10500000000],
    [".5", 500000000],
    ["1.0000000001", 0], // the reference's scale runs out after nine fraction digits
    ["419939419939", -4335693756319687168n], // and its int64 arithmetic wraps
  ];
  for (const [s, want] of parsed) assert.equal(parseZeekTime(s), want, s);
  for (const s of ["", " ", "a", "-"]) assert.throws(() => parseZeekTime(s), /invalid time format/);
  assert.equal(formatZeekTime(60000000001), "60.000000001");
  assert.equal(formatZeekTime(-60000000010), "-60.000000010");
  assert.equal(formatZeekTime(-60000000000), "-60.000000");
  assert.equal(formatZeekTime(-100000000), "-0.100000");
  assert.equal(formatZeekTime(1425565514419939100n), "1425565514.419939100");
});

Deno.test("zeek string escapes unescape byte-wise", () => {
  const cases: [string, number[]][] = [
    ["\\\\", [0x5c]],
    ["\\", [0x5c]],
    ["\\x07\\x08\\x0c\\x0a\\x0d\\x09\\x0b", [7, 8, 12, 10, 13, 9, 11]],
    ["\\x00\\xf0\\x9f\\x98\\x81", [0, 0xf0, 0x9f, 0x98, 0x81]],
    ["\\xzz", [0x5c, 0x78, 0x7a, 0x7a]],
    ["\\xz1", [0xf1]], // one valid digit suffices in the reference
    ["\\q\\n\\t", [0x5c, 0x71, 10, 9]],
  ];
  for (const [s, want] of cases) {
    assert.deepEqual([...unescapeZeekBytes(enc.encode(s))], want, s);
    assert.deepEqual(
      [...unescapeZeekBytes(enc.encode("pre" + s + "suf"))],
      [...enc.encode("pre"), ...want, ...enc.encode("suf")],
    );
  }
});

Deno.test("zeek value formatting follows zeekio.FormatValue", () => {
  const cases: [string, string][] = [
    ["null", "-"],
    ["true", "T"],
    ["0x0102ff", "AQL/"],
    ["0x", ""],
    ["1.5(float32)", "1.5"],
    ["0.1(float32)", "0.1"],
    ["3074.78125(float32)", "3074.7812"], // Go rounds a shortest-digit tie to even
    ["1e21", "1000000000000000000000"],
    ["1e-7", "0.0000001"],
    ["-0.", "-0"],
    ["+Inf", "+Inf"],
    ["NaN", "NaN"],
    ["-5(int8)", "-5"],
    ["18446744073709551615(uint64)", "18446744073709551615"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["1h", "3600.000000"],
    ["<{a:int64}>", "<{a:int64}>"],
    ['"\\u200b\\u00e9x\\t"', "\\x20\\x0béx\\x09"],
    ['"a,b"', "a,b"],
    ['["a,b","-",null(string)]', "a\\x2cb,\\x2d,-"],
    ['|[null(string),"a"]|', ",a"],
    ["|[null(int64),1]|", "0,1"],
    ["[[1,2],null([int64]),[]([int64])]", "1,2,-,(empty)"],
    ['|{"a":1,"b":2}|', "[a1b2]"],
    ["{a:1,b:null(string),c:{d:true}}", "1,-,T"],
    ["1((int64,string))", "0:1"],
    ['"x"((int64,string))', "1:x"],
    ["%b(enum(a,b))", "1"],
    ['error("boom\\tx")', "boom\tx"],
    ["error({a:1})", "error({a:1})"],
    ['"x"(=foo)', "x"],
  ];
  for (const [zson, want] of cases) {
    const v = parseZsonValue(zson);
    assert.equal(formatZeekValue(v.type, v.body), want, zson);
  }
  const mapped = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4);
  assert.equal(formatZeekValue(TypeIP, mapped), "::ffff:1.2.3.4");
});

Deno.test("zeek writer re-emits headers on type and path changes", async () => {
  const vals = await readZson(
    '{_path:"a",x:1}\n{_path:"a",x:2}\n{_path:"b",x:3}\n{_path:"b",y:"s"}\n{x:4}\n{_path:null(string),x:5}\n{_path:1,x:6}\n',
  );
  const [out, err] = await writeZeek(vals, 2);
  assert.equal(err, null);
  assert.equal(
    out,
    header +
      "#path\ta\n#fields\tx\n#types\tint\n1\n2\n" +
      "#path\tb\n3\n" +
      "#fields\ty\n#types\tstring\ns\n" +
      "#path\t-\n#fields\tx\n#types\tint\n4\n" +
      "#fields\tx\n#types\tint\n5\n" +
      "#fields\tx\n#types\tint\n6\n",
  );
});

Deno.test("zeek writer rejects what Zeek cannot hold, keeping earlier output", async () => {
  const vals = await readZson("{a:1}\n{a:0x01}\n");
  const [out, err] = await writeZeek(vals);
  assert.equal(out, header + "#fields\ta\n#types\tint\n1\n");
  assert.match((err as Error).message, /^type bytes: type cannot be represented in zeek format$/);
  for (const bad of ["{a:null}", "{a:|{1:2}|}", "{a:%x(enum(x))}", "{a:<int64>}", "{a:error(1)}"]) {
    const [, e] = await writeZeek(await readZson(bad));
    assert.match((e as Error).message, /type cannot be represented in zeek format/, bad);
  }
  const [, e] = await writeZeek(await readZson("1\n"));
  assert.equal((e as Error).message, "zeek output encountered non-record value: 1");
});

Deno.test("zeek round trip keeps values", async () => {
  const text = header + "#path\tconn\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tset\tvec\td\n" +
    "#types\ttime\tstring\taddr\tport\tset[count]\tvector[interval]\tdouble\n" +
    "1425565514.419939\tC\\x09x\t192.168.1.1\t80\t1,2,3\t1.500000,-,0.000000001\t0.25\n" +
    "-\t\\x2d\t-\t-\t(empty)\t-\t-\n";
  const [out] = await writeZeek(await readZeek(text));
  assert.equal(out, text);
});
