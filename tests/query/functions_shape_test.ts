import assert from "node:assert/strict";
import { each, field, fn, THIS, value } from "./functions_util.ts";
import { run } from "./source_helpers.ts";

Deno.test("cast(): doc examples (§6)", () => {
  assert.deepEqual(each(fn("cast", THIS, "<ip>"), ['"10.0.0.1"', "1", '"foo"']), [
    "10.0.0.1",
    'error("cannot cast 1 to type ip")',
    'error("cannot cast \\"foo\\" to type ip")',
  ]);
  assert.deepEqual(each(fn("cast", THIS, '"foo"'), ["{a:1,b:2}", "{a:3,b:4}"]), [
    "{a:1,b:2}(=foo)",
    "{a:3,b:4}(=foo)",
  ]);
  // ztest shape-by-name: the name comes from a field
  assert.deepEqual(each(fn("cast", THIS, field("s")), ['{s:"foo",x:1}', '{s:"bar",x:2,y:3}']), [
    '{s:"foo",x:1}(=foo)',
    '{s:"bar",x:2,y:3}(=bar)',
  ]);
  // The string form names `this`, not the first argument.
  assert.equal(fn("cast", field("x"), '"baz"')("{x:1}"), "{x:1}(=baz)");
  // ztest cast-name-only
  value("<foo={x:int64}>");
  assert.deepEqual(each(fn("cast", THIS, "<foo>"), ["null", "{x:123}"]), [
    "null(foo={x:int64})",
    "{x:123}(=foo)",
  ]);
  assert.equal(
    fn("cast", THIS, "1")("{x:1}"),
    'error("shaper type argument is not a type: 1")',
  );
  assert.equal(fn("cast", THIS, field("t"))('{t:error("boom")}'), 'error("boom")');
  // one-argument form shapes this
  assert.equal(fn("cast", "<{a:string}>")("{a:1}"), '{a:"1"}');
});

Deno.test("cast(): record leaves keep input order; bad leaves become errors (ztest shape-cast)", () => {
  value("<port=uint16>");
  const id = fn("cast", field("id"), "<{orig_h:ip,orig_p:port=uint16,resp_h:ip,resp_p:port}>");
  const id2 = fn("cast", field("id"), "<{resp_h:ip,resp_p:port=uint16,orig_h:ip,orig_p:port}>");
  const good =
    '{id:{orig_h:ff02::fb,orig_p:5353(port=uint16),resp_p:5353(port),resp_h:"1.2.3.4"},other:123.}';
  assert.equal(
    id(good),
    "{orig_h:ff02::fb,orig_p:5353(port=uint16),resp_p:5353(port),resp_h:1.2.3.4}",
  );
  assert.equal(
    id2(good),
    "{orig_h:ff02::fb,orig_p:5353(port=uint16),resp_p:5353(port),resp_h:1.2.3.4}",
  );
  const bad =
    '{id:{orig_h:ff02::fb,orig_p:5353(port=uint16),resp_p:5353(port),resp_h:"notanip"},other:123.}';
  assert.equal(
    id(bad),
    '{orig_h:ff02::fb,orig_p:5353(port=uint16),resp_p:5353(port),resp_h:error("cannot cast \\"notanip\\" to type ip")}',
  );
});

Deno.test("cast(): arrays and sets (ztests shape-cast-*)", () => {
  const toArrays = fn("cast", "<{a:[ip],b:[{b:ip}]}>");
  assert.deepEqual(
    each(toArrays, [
      "{a:null([string]),b:null([{b:string}])}",
      "{a:[]([string]),b:[]([{b:string}])}",
      '{a:["1.1.1.1","2.2.2.2"],b:[{b:"1.1.1.1"},{b:"2.2.2.2"}]}',
      '{a:[null(string),"1.1.1.1"],b:[null({b:string}),{b:null(string)},{b:"2.2.2.2"}]}',
      '{a:[null,"1.1.1.1","2"],b:[{b:null},{b:"1.1.1.1"},{b:"2"}]}',
      '{a:|[null,"1.1.1.1","2"]|,b:|[{b:null},{b:"1.1.1.1"},{b:"2"}]|}',
    ]),
    [
      "{a:null([ip]),b:null([{b:ip}])}",
      "{a:[]([ip]),b:[]([{b:ip}])}",
      "{a:[1.1.1.1,2.2.2.2],b:[{b:1.1.1.1},{b:2.2.2.2}]}",
      "{a:[null(ip),1.1.1.1],b:[null({b:ip}),{b:null(ip)},{b:2.2.2.2}]}",
      '{a:[null,1.1.1.1,error("cannot cast \\"2\\" to type ip")],b:[{b:null(ip)},{b:1.1.1.1},{b:error("cannot cast \\"2\\" to type ip")}]}',
      '{a:[null,error("cannot cast \\"2\\" to type ip"),1.1.1.1],b:[{b:error("cannot cast \\"2\\" to type ip")},{b:null(ip)},{b:1.1.1.1}]}',
    ],
  );
  const toSets = fn("cast", "<{a:|[ip]|,b:|[{b:ip}]|}>");
  assert.deepEqual(
    each(toSets, [
      '{a:["1.1.1.1","2.2.2.2","2.2.2.2"],b:[{b:"1.1.1.1"},{b:"2.2.2.2"},{b:"2.2.2.2"}]}',
      '{a:[null,"1.1.1.1","2"],b:[{b:null},{b:"1.1.1.1"},{b:"2"}]}',
    ]),
    [
      "{a:|[1.1.1.1,2.2.2.2]|,b:|[{b:1.1.1.1},{b:2.2.2.2}]|}",
      '{a:|[null,1.1.1.1,error("cannot cast \\"2\\" to type ip")]|,b:|[{b:null(ip)},{b:1.1.1.1},{b:error("cannot cast \\"2\\" to type ip")}]|}',
    ],
  );
});

Deno.test("cast(): named and union targets (ztests shape-cast-named, shape-cast-to-union)", () => {
  value("<prec={p:port=int64}>");
  value("<parr=[port=int64]>");
  const named = fn("cast", "<{a:port=int64,b:prec,c:parr}>");
  assert.deepEqual(
    each(named, ["{a:1(myport=int16),b:{p:1(myport)},c:[1(myport)]}", "{a:1,b:{p:1},c:[1]}"]),
    [
      "{a:1(=port),b:{p:1(port)}(=prec),c:[1(port)](=parr)}",
      "{a:1(=port),b:{p:1(port)}(=prec),c:[1(port)](=parr)}",
    ],
  );
  const union = fn("cast", "<{a:union=(int64,string,string_named=string)}>");
  assert.deepEqual(
    each(union, [
      "{a:null}",
      "{a:null(int64)}",
      "{a:1}",
      '{a:"hello"}',
      '{a:"goodbye"(=string_named)}',
    ]),
    [
      "{a:null(union=(int64,string,string_named=string))}",
      "{a:null(union=(int64,string,string_named=string))}",
      "{a:1(union=(int64,string,string_named=string))}",
      '{a:"hello"(union=(int64,string,string_named=string))}',
      '{a:"goodbye"(=string_named)(union=(int64,string,string_named))}',
    ],
  );
});

Deno.test("crop(): doc and ztests", () => {
  assert.equal(fn("crop", THIS, "<{a:int64}>")("{a:1,b:2}"), "{a:1}");
  assert.equal(fn("crop", THIS, "<[{a:int64}]>")("[{a:1,b:2},{a:3,b:4}]"), "[{a:1},{a:3}]");
  assert.deepEqual(each(fn("crop", THIS, "<{a:int64}>"), ["10.0.0.1", "1", '"foo"']), [
    "10.0.0.1",
    "1",
    '"foo"',
  ]);
  assert.equal(
    fn("crop", "<{set:|[{b:string}]|,arr:[{a:string}]}>")(
      '{arr:[{a:"one",b:"two"},{a:"three",b:"four"}],set:|[{a:"one",b:"two"},{a:"three",b:"four"}]|}',
    ),
    '{arr:[{a:"one"},{a:"three"}],set:|[{b:"two"},{b:"four"}]|}',
  );
  // ztest shape-crop: leaves are not cast, input order kept
  const input =
    "{id:{orig_h:ff02::fb,orig_p:5353(port=uint16),resp_h:1.2.3.4,resp_p:5353(port)},other:123.}";
  assert.equal(
    fn("crop", field("id"), "<{orig_p:port=uint16,orig_h:ip}>")(input),
    "{orig_h:ff02::fb,orig_p:5353(port=uint16)}",
  );
  // ztest shape-crop-null: a null target field crops nothing below it
  const unchanged = [
    "{f:1(=int64_named)}(=int64_record_named)",
    "{f:[1(=int64_named)](=array_named)}(=array_record_named)",
    "{f:{g:1(=int64_named)}(=record_named)}(=record_record_named)",
    "{f:|[1(=int64_named)]|(=set_named)}(=set_record_named)",
    "{f:1(=int64_named)(union_named=(int64_named,int64))}(=union_record_named)",
  ];
  for (const name of ["crop", "fill", "order"]) {
    assert.deepEqual(each(fn(name, "<{f:null}>"), unchanged), unchanged, name);
  }
});

Deno.test("fill() and fit(): doc and ztests", () => {
  assert.equal(fn("fill", THIS, "<{a:int64,b:string}>")("{a:1}"), "{a:1,b:null(string)}");
  assert.equal(
    fn("fill", THIS, "<[{a:int64,b:int64}]>")("[{a:1},{a:2}]"),
    "[{a:1,b:null(int64)},{a:2,b:null(int64)}]",
  );
  assert.deepEqual(
    each(fn("fill", "<{a:{b:{c:string}}}>"), [
      '{s:"x"}',
      "{a:null({s:string})}",
      "{a:{s:null(string)}}",
    ]),
    [
      '{s:"x",a:null({b:{c:string}})}',
      "{a:null({s:string,b:{c:string}})}",
      "{a:{s:null(string),b:null({c:string})}}",
    ],
  );
  const id = '{id:{orig_h:"ff02::fb",resp_h:"ff02::fb"}}';
  assert.equal(
    fn("fill", field("id"), "<{orig_h:ip,orig_p:port=uint16}>")(id),
    '{orig_h:"ff02::fb",resp_h:"ff02::fb",orig_p:null(port=uint16)}',
  );
  assert.equal(
    fn("fit", field("id"), "<{orig_h:ip,orig_p:port=uint16}>")(id),
    '{orig_h:"ff02::fb",orig_p:null(port=uint16)}',
  );
  assert.equal(
    fn("fill", "<{arr:[{b:string,a:string}],set:|[{b:string,a:string}]|}>")(
      '{arr:[{a:"one"},{a:"three"}],set:|[{a:"one"},{a:"three"}]|}',
    ),
    '{arr:[{a:"one",b:null(string)},{a:"three",b:null(string)}],set:|[{a:"one",b:null(string)},{a:"three",b:null(string)}]|}',
  );
});

Deno.test("order(): doc and ztests", () => {
  assert.equal(fn("order", THIS, "<{a:int64,b:string}>")('{b:"foo", a:1}'), '{a:1,b:"foo"}');
  assert.equal(fn("order", THIS, "<{}>")('{c:0, a:1, b:"foo"}'), '{a:1,b:"foo",c:0}');
  const o = fn("order", "<{id: {orig_h: string, orig_p: port=uint16, resp_h:ip,resp_p:port}}>");
  assert.equal(
    o('{b:2,c:3,id:{resp_p:4,g:7,resp_h:"3",f:6,orig_p:2,orig_h:"1",e:5},a:1}'),
    '{id:{orig_h:"1",orig_p:2,resp_h:"3",resp_p:4,e:5,f:6,g:7},a:1,b:2,c:3}',
  );
  assert.equal(
    o('{id:{orig_h:"ff02::fb",orig_p:5353(port=uint16),resp_p:5354(port),resp_h:"1.2.3.4"},other:123.}'),
    '{id:{orig_h:"ff02::fb",orig_p:5353(port=uint16),resp_h:"1.2.3.4",resp_p:5354(port)},other:123.}',
  );
  assert.equal(
    fn("order", "<{set:|[{b:string,a:string}]|,arr:[{b:string,a:string}]}>")(
      '{arr:[{a:"one",b:"two"},{a:"three",b:"four"}],set:|[{a:"one",b:"two"},{a:"three",b:"four"}]|}',
    ),
    '{set:|[{b:"two",a:"one"},{b:"four",a:"three"}]|,arr:[{b:"two",a:"one"},{b:"four",a:"three"}]}',
  );
});

Deno.test("shape(): doc and ztests", () => {
  assert.deepEqual(
    each(fn("shape", THIS, "<{a:int64,b:string}>"), ["{b:1,a:2}", "{a:3}", "{b:4,c:5}"]),
    [
      '{a:2,b:"1"}',
      "{a:3,b:null(string)}",
      '{a:null(int64),b:"4",c:5}',
    ],
  );
  assert.equal(
    fn("shape", "<{a:time}>")('{a:"a",b:"b"}'),
    '{a:error("cannot cast \\"a\\" to type time"),b:"b"}',
  );
  value("<prec2={p:port=int64,q:port}>");
  value("<parr2=[prec2]>");
  assert.equal(
    fn("shape", "<{c:port,b:parr2,a:prec2}>")("{a:{q:1(myport=int16),p:2(myport)},b:[{q:1}],c:3}"),
    "{c:3(=port),b:[{p:null(port),q:1(port)}(=prec2)](=parr2),a:{p:2,q:1}(prec2)}",
  );
  assert.deepEqual(
    each(fn("shape", "<{a:{a:float64,b:float64}}>"), [
      "{a:{a:1}}",
      "{a:{b:1}}",
      "{a:{c:1,b:1}}",
    ]),
    [
      "{a:{a:1.,b:null(float64)}}",
      "{a:{a:null(float64),b:1.}}",
      "{a:{a:null(float64),b:1.,c:1}}",
    ],
  );
  assert.equal(
    fn("shape", "<{a:string,b:string}>")("{a:null,b:null(int64)}"),
    "{a:null(string),b:null(string)}",
  );
  assert.equal(
    fn("shape", "<{array:[string],record:{c1:int64,c2:string,c3:time}}>")(
      "{array:null,record:null}",
    ),
    "{array:null([string]),record:null({c1:int64,c2:string,c3:time})}",
  );
  value("<id3={orig_h:ip,orig_p:port=uint16,vlan:uint16,resp_h:ip,resp_p:port}>");
  assert.equal(
    fn("shape", "<{id:id3}>")(
      '{id:{orig_h:"1.2.3.4",resp_h:"5.6.7.8",orig_p:1234(port=uint16),resp_p:53(port),tag:0(uint16)}}',
    ),
    "{id:{orig_h:1.2.3.4,orig_p:1234(port=uint16),vlan:null(uint16),resp_h:5.6.7.8,resp_p:53(port),tag:0(uint16)}}",
  );
});

Deno.test("shaping functions: arity", () => {
  assert.throws(() => fn("cast"), /cast\(\): too few arguments/);
  assert.throws(() => fn("shape", THIS, "<int64>", "1"), /shape\(\): too many arguments/);
});

Deno.test("crop/fill/order with named types (ztests shape-*-named)", () => {
  value("<port=int64>");
  value("<prc={p:port}>");
  value("<par=[prc]>");
  assert.deepEqual(
    each(fn("crop", "<{a:prc,b:par}>"), [
      "{a:{p:1(=port),q:null(port)},b:[{p:1,q:2(port)}],c:3(port)}",
      "{a:{p:1(myport=int16),q:null(port=int64)},b:[{p:1(myport),q:2(port)}],c:3(port)}",
    ]),
    ["{a:{p:1(=port)},b:[{p:1}]}", "{a:{p:1(myport=int16)},b:[{p:1(myport)}]}"],
  );
  value("<pq={p:port,q:port}>");
  value("<pqa=[pq]>");
  assert.deepEqual(
    each(fn("fill", "<{a:pq,b:pqa,c:port}>"), [
      "{a:{q:1},b:[{p:1}]}",
      "{a:{q:1(myport=int16)},b:[{p:1(myport)}]}",
    ]),
    [
      "{a:{q:1,p:null(port=int64)},b:[{p:1,q:null(port)}],c:null(port)}",
      "{a:{q:1(myport=int16),p:null(port=int64)},b:[{p:1(myport),q:null(port)}],c:null(port)}",
    ],
  );
  assert.deepEqual(
    each(fn("order", "<{c:port,b:pqa,a:pq}>"), [
      "{a:{q:1(=port),p:2(port)},b:[{q:1,p:2(port)}],c:3(port)}",
      "{a:{q:1(myport=int16),p:2(myport)},b:[{q:1(myport),p:2(myport)}],c:3(myport)}",
    ]),
    [
      "{c:3(=port),b:[{p:2(port),q:1}],a:{p:2(port),q:1(port)}}",
      "{c:3(myport=int16),b:[{p:2(myport),q:1(myport)}],a:{p:2(myport),q:1(myport)}}",
    ],
  );
});

Deno.test("cast(): to a type computed from the input (typeof of a field) at run time", async () => {
  assert.deepEqual(
    await run("yield [cast(b, typeof(a)), cast(b, typeof(c))]", {
      input: '{a:1,b:"2",c:1.5}\n{a:"x",b:3,c:true}',
    }),
    // As zq answers (loch once took typeof(a) for a constant: <error(string)>).
    ["[2,2.]", '["3",true]'],
  );
});
