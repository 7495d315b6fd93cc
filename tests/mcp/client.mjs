// client.mjs — heapwalk mcp driven by the protocol's official TypeScript
// SDK client (@modelcontextprotocol/sdk from npm: its Client over its
// StdioClientTransport, which spawns `heapwalk mcp DIR...`), through a leak
// hunt on three dumps of a JVM and three V8 snapshots. Every answer is
// checked against what the command line prints for the same command
// (heapwalk -q -f json ..., run here, on the dumps' resolved paths): equal
// as parsed JSON, but for the rows of a page (the CLI's -n 0 rows sliced
// as the page asked), "shown" (the rows given) and "next_offset" (there
// exactly when a page is full), which are checked on their own.
//
//   node client.mjs --heapwalk BIN --sdk NODE_MODULES --jvm DIR --v8 DIR --scratch DIR
//
// DIR of --jvm holds base.hprof, target.hprof, final.hprof (tests/leaks-run.sh),
// --v8 base/target/final.heapsnapshot (tests/node/leaks.js); --scratch is a
// directory of ours under the server's directories (symlinks made there).
// Prints a line per check ("ok ..." or "FAIL ..."), then one JSON line
// {"ok":..,"passed":N,"failed":M,"failures":[...]}; exit 0 when all passed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const opt = {};
for (let i = 2; i + 1 < process.argv.length; i += 2)
	opt[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['heapwalk', 'sdk', 'jvm', 'v8', 'scratch'])
	if (!opt[k]) {
		console.error(`client.mjs: --${k} is required`);
		process.exit(2);
	}

const sdk = (p) => import(pathToFileURL(path.join(opt.sdk, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { McpError } = await sdk('types.js');

let passed = 0;
const failures = [];
function check(name, cond, detail) {
	if (cond) {
		passed++;
		console.log(`ok ${name}`);
	} else {
		const d = typeof detail === 'function' ? detail() : detail;
		failures.push(`${name}${d ? ': ' + d : ''}`);
		console.log(`FAIL ${name}${d ? ': ' + String(d).slice(0, 2000) : ''}`);
	}
	return cond;
}

// The first difference between two JSON values, as a path; null when equal.
function diff(a, b, at = '$') {
	if (isDeepStrictEqual(a, b))
		return null;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null ||
	    Array.isArray(a) !== Array.isArray(b))
		return `${at}: ${JSON.stringify(a)?.slice(0, 300)} != ${JSON.stringify(b)?.slice(0, 300)}`;
	if (Array.isArray(a) && a.length !== b.length)
		return `${at}: ${a.length} items != ${b.length}`;
	const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
	for (const k of keys) {
		if (!(k in a) || !(k in b))
			return `${at}.${k}: ${k in a ? 'only in the answer' : 'only in the CLI'}`;
		const d = diff(a[k], b[k], `${at}.${k}`);
		if (d)
			return d;
	}
	return `${at}: differs`;
}

// heapwalk -q -f json ARGS: its output parsed (status 0 required).
function cli(...args) {
	const out = execFileSync(opt.heapwalk, ['-q', '-f', 'json', ...args], { maxBuffer: 1 << 30, encoding: 'utf8' });
	return JSON.parse(out);
}

// heapwalk ARGS that fails: its one line on stderr, without "heapwalk: ".
function cliError(...args) {
	try {
		execFileSync(opt.heapwalk, ['-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
	} catch (e) {
		const lines = e.stderr.split('\n').filter((l) => l !== '');
		return lines.length === 1 ? lines[0].replace(/^heapwalk: /, '') : `(${lines.length} lines) ${e.stderr}`;
	}
	return '(the CLI did not fail)';
}

// Is row r at the top level (no depth, or 0)? Is it biggest's row of
// the objects after those shown (no id)?
const topRow = (r) => r.depth === undefined || r.depth === 0;
const restRow = (r) => topRow(r) && 'id' in r && r.id === null;

// A page of the CLI's rows as the server pages them: the top level rows
// [offset, offset+limit) with the rows under them, and the row of the
// rest. full: the CLI's answer with -n 0 (a list) or -n offset+limit (a
// tree: each level cut as the server's run cuts it).
function paged(full, offset, limit) {
	const want = structuredClone(full);
	let t = -1;
	want.rows = full.rows.filter((r) => {
		if (restRow(r))
			return true;
		if (topRow(r))
			t++;
		return t >= offset && t < offset + limit;
	});
	delete want.shown;
	return want;
}

// The CLI's page: its command run with -n offset+limit, as the server
// runs it, then paged.
const pagedCli = (args, offset, limit) => paged(cli('-n', String(offset + limit), ...args), offset, limit);

process.on('uncaughtException', (e) => {
	failures.push(`exception: ${e?.stack ?? e}`);
	console.log(`FAIL exception: ${String(e?.stack ?? e).slice(0, 2000)}`);
	console.log(JSON.stringify({ ok: false, passed, failed: failures.length, failures }));
	process.exit(1);
});

const transport = new StdioClientTransport({
	command: opt.heapwalk,
	args: ['mcp', opt.jvm, opt.v8, opt.scratch],
	stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (b) => { stderr += b; });
const client = new Client({ name: 'heapwalk-tests', version: '1.0.0' });
await client.connect(transport);

// A tool call: its one text content parsed, or {error: text} when isError.
async function call(name, args) {
	const r = await client.callTool({ name, arguments: args });
	// the answer's text, then (not after an error) what the CLI says on stderr
	if (!Array.isArray(r.content) || r.content.length < 1 || r.content.length > 2 || r.content[0].type !== 'text' ||
	    (r.content.length === 2 && (r.isError === true || r.content[1].type !== 'text')))
		throw new Error(`${name}: not one text content (and notes): ${JSON.stringify(r).slice(0, 500)}`);
	if (r.isError === true)
		return { error: r.content[0].text };
	return JSON.parse(r.content[0].text);
}

// answer and the CLI's JSON equal, paging aside (checked here)
function same(name, got, want, page) {
	if (got.error !== undefined)
		return check(name, false, `error: ${got.error}`);
	if (page) {
		const rows = (got.rows ?? []).filter((r) => topRow(r) && !restRow(r));
		check(`${name}: shown is the rows given`, got.shown === undefined || got.shown === rows.length,
		      () => `shown ${got.shown}, ${rows.length} rows`);
		const full = rows.length === page.limit || (got.rows ?? []).some(restRow);
		check(`${name}: next_offset when the page is full`,
		      full ? got.next_offset === page.offset + page.limit : got.next_offset === undefined,
		      () => `${rows.length} rows of ${page.limit}, next_offset ${got.next_offset}`);
		got = structuredClone(got);
		delete got.shown;
		delete got.next_offset;
	}
	return check(name, isDeepStrictEqual(got, want), () => diff(got, want));
}

// ---- the protocol ----
check('server info', client.getServerVersion()?.name === 'heapwalk', () => JSON.stringify(client.getServerVersion()));
check('tools capability', client.getServerCapabilities()?.tools !== undefined,
      () => JSON.stringify(client.getServerCapabilities()));
const ping = await client.ping();
check('ping', ping !== undefined && Object.keys(ping).length === 0, () => JSON.stringify(ping));
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const expected = ['biggest', 'classes', 'close', 'diff', 'dumps', 'inspect', 'leaks', 'lifelines', 'merged', 'object',
		  'open', 'paths', 'query', 'referents', 'referrers', 'snapshot', 'summary'];
check('listTools names', isDeepStrictEqual(names, expected), () => names.join(','));
check('listTools schemas', tools.every((t) => t.inputSchema?.type === 'object' && typeof t.description === 'string'),
      'a tool without an object schema');
try {
	await client.callTool({ name: 'no-such-tool', arguments: {} });
	check('unknown tool: protocol error -32602', false, 'no error');
} catch (e) {
	check('unknown tool: protocol error -32602', e instanceof McpError && e.code === -32602 && /no-such-tool/.test(e.message),
	      () => `${e.constructor.name} ${e.code} ${e.message}`);
}

// ---- a leak hunt on three dumps ----
async function hunt(kind, dir, ext) {
	const real = {}, h = {};
	for (const s of ['base', 'target', 'final']) {
		real[s] = fs.realpathSync(path.join(dir, `${s}.${ext}`));
		const o = await call('open', { path: path.join(dir, `${s}.${ext}`) });
		if (!check(`${kind}: open ${s}`, o.error === undefined && /^d[0-9]+$/.test(o.dump), () => JSON.stringify(o)))
			return null;
		h[s] = o.dump;
		same(`${kind}: open ${s}'s info = info`, o.info, cli('info', real[s]));
	}
	const f = real.final, d = h.final;

	// leaks is paged by cluster, each with its example path's rows: the
	// CLI's clusters (offset, offset+limit] of -n offset+limit
	const leaksPage = async (offset, limit) => {
		const args = { base: h.base, target: h.target, final: h.final };
		if (offset !== undefined)
			args.offset = offset;
		if (limit !== undefined)
			args.limit = limit;
		const o = offset ?? 0, l = limit ?? 20;
		const got = await call('leaks', args);
		const want = cli('leaks', '-n', String(o + l), real.base, real.target, real.final);
		want.rows = want.rows.filter((r) => r.cluster > o && r.cluster <= o + l);
		delete want.shown;
		const given = new Set((got.rows ?? []).map((r) => r.cluster)).size;
		const name = `${kind}: leaks offset ${o} limit ${l} = leaks -n ${o + l}, its clusters after ${o}`;
		check(`${name}: shown is the clusters given`, got.shown === given, () => `shown ${got.shown}, ${given} clusters`);
		check(`${name}: next_offset when more clusters follow (the answer counts them)`,
		      o + l < got.clusters ? got.next_offset === o + l : got.next_offset === undefined,
		      () => `${got.clusters} clusters, ${given} from ${o}, next_offset ${got.next_offset}`);
		const cut = structuredClone(got);
		delete cut.shown;
		delete cut.next_offset;
		same(name, cut, want);
		return { got, want };
	};
	const leaks = (await leaksPage()).got;
	await leaksPage(undefined, 1);
	const second = await leaksPage(1, 1);
	await leaksPage(leaks.clusters - 1, 1); // the last: a full page, and no more after it
	check(`${kind}: leaks offset 1 limit 1: cluster 2 alone, whole`,
	      second.got.rows?.length > 0 && second.got.rows.every((r) => r.cluster === 2) &&
	      second.got.rows.length === second.want.rows.length, () => JSON.stringify(second.got.rows).slice(0, 500));
	const top = (leaks.rows ?? []).find((r) => r.cluster === 1 && typeof r.select === 'string');
	if (!check(`${kind}: leaks has a top cluster with its select`, top !== undefined, () => JSON.stringify(leaks).slice(0, 500)))
		return h;

	// the workloads' truth (the leaks suite checks it object by object): the
	// 300 Leaked objects the action made and the undo kept, the top cluster
	const last = leaks.rows.filter((r) => r.cluster === 1).at(-1);
	check(`${kind}: the top cluster is the 300 Leaked`, top.count === 300 && last?.class === (kind === 'JVM' ? 'Leaky$Leaked' : 'Leaked'),
	      () => JSON.stringify(last));
	const sel = await call('query', { dump: d, steps: `${top.select} | objects`, limit: 1000 });
	check(`${kind}: its select: 300 objects`, sel.objects === 300 && sel.rows?.length === 300, () => `${sel.objects} objects`);

	// its select as query: the classes (default view), then its objects
	const q = await call('query', { dump: d, steps: top.select });
	same(`${kind}: query select = -e select`, q, pagedCli([f, '-e', top.select], 0, 50), { offset: 0, limit: 50 });
	const qo = await call('query', { dump: d, steps: `${top.select} | objects`, limit: 7, offset: 3 });
	same(`${kind}: query select | objects, a page = -e '... | objects'`, qo,
	     pagedCli([f, '-e', `${top.select} | objects`], 3, 7), { offset: 3, limit: 7 });
	check(`${kind}: the cluster's objects are of its class`, qo.rows?.length === 7 && qo.rows.every((r) => r.class === top.class),
	      () => JSON.stringify(qo.rows));
	const id = qo.rows?.[0]?.id;
	// the id as DevTools writes a V8 object's, @ and decimal: the same object
	if (typeof id === 'string')
		same(`${kind}: object @decimal = object 0x...`, await call('object', { dump: d, object: `@${BigInt(id)}` }),
		     await call('object', { dump: d, object: id }));

	// an example: its paths, its details
	same(`${kind}: paths = paths`, await call('paths', { dump: d, object: id }), cli('paths', f, id));
	same(`${kind}: paths max 2 = paths --max 2`, await call('paths', { dump: d, object: id, max: 2 }),
	     cli('--max', '2', 'paths', f, id));
	// an object with more paths than the default 5 (the CLI finds it): the
	// default applies (the JVM's: a V8 snapshot has a handful of roots)
	const many = kind !== 'JVM' ? null : cli('-n', '40', 'biggest', f).rows.map((r) => r.id).filter((o) => typeof o === 'string').find((o) => cli('--max', '6', 'paths', f, o).paths === 6);
	if (many !== null && check(`${kind}: an object with over 5 paths`, many !== undefined, 'none in the biggest 40')) {
		const p = await call('paths', { dump: d, object: many });
		same(`${kind}: paths of ${many} = paths`, p, cli('paths', f, many));
		check(`${kind}: paths of ${many}: 5 by default`, p.paths === 5, () => `${p.paths} paths`);
		const p2 = await call('paths', { dump: d, object: many, max: 2 });
		same(`${kind}: paths of ${many}, max 2 = paths --max 2`, p2, cli('--max', '2', 'paths', f, many));
		check(`${kind}: paths of ${many}, max 2: 2`, p2.paths === 2, () => `${p2.paths} paths`);
	}
	const ob = await call('object', { dump: d, object: id });
	const row = cli('-n', '0', f, '-e', `object ${id} | objects`).rows[0];
	const obRow = {};
	for (const k of Object.keys(row))
		obRow[k] = ob[k];
	check(`${kind}: object's row = -e 'object ID | objects'`, ob.view === 'object' && isDeepStrictEqual(obRow, row),
	      () => diff(obRow, row));
	// its fields as the workloads made them: a JVM Leaked's name "leak-N" and
	// its Payload; a V8 Leaked's payload (its small integer i is no node)
	const fld = (n) => (ob.fields ?? []).find((x) => x.name === n)?.value;
	if (kind === 'JVM')
		check(`${kind}: object's fields: name and payload`, ob.class === 'Leaky$Leaked' &&
		      fld('name')?.class === 'java.lang.String' && /^leak-[0-9]+$/.test(fld('name')?.string) &&
		      fld('payload')?.class === 'Leaky$Payload' && /^0x[0-9a-f]+$/.test(fld('payload')?.ref),
		      () => JSON.stringify(ob).slice(0, 800));
	else
		check(`${kind}: object's fields: payload`, ob.class === 'Leaked' && fld('payload')?.class === 'Payload',
		      () => JSON.stringify(ob).slice(0, 800));
	// the payload's id passed back: its row as the CLI gives it
	const pid = fld('payload')?.ref;
	const pob = await call('object', { dump: d, object: pid });
	check(`${kind}: the payload's id passed back`, pid !== undefined && pob.id === pid && pob.class === (kind === 'JVM' ? 'Leaky$Payload' : 'Payload') &&
	      pob.retained === cli('-n', '0', f, '-e', `object ${pid} | objects`).rows[0]?.retained,
	      () => JSON.stringify(pob).slice(0, 500));

	// summary, and classes paged to the end against the CLI's whole histogram
	same(`${kind}: summary = info`, await call('summary', { dump: d }), cli('info', f));
	const all = cli('-n', '0', 'classes', f);
	const rows = [];
	let offset = 0, pages = 0;
	for (;;) {
		const p = await call('classes', { dump: d, offset, limit: 40 });
		if (p.error !== undefined || !Array.isArray(p.rows) || pages > 10000) {
			check(`${kind}: classes page at ${offset}`, false, JSON.stringify(p).slice(0, 500));
			break;
		}
		same(`${kind}: classes page at ${offset}`, p, paged(all, offset, 40), { offset, limit: 40 });
		rows.push(...p.rows);
		pages++;
		if (p.next_offset === undefined)
			break;
		offset = p.next_offset;
	}
	check(`${kind}: classes' ${pages} pages = classes -n 0's ${all.rows.length} rows`, isDeepStrictEqual(rows, all.rows),
	      () => diff(rows, all.rows));
	check(`${kind}: classes took more than one page`, pages > 1, `${pages} page`);
	same(`${kind}: classes by name, filtered`, await call('classes', { dump: d, sort: 'name', filter: '^[A-Z]', limit: 1000 }),
	     pagedCli(['--sort', 'name', '--filter', '^[A-Z]', 'classes', f], 0, 1000), { offset: 0, limit: 1000 });

	// the other tools of the hunt, each against its command
	const P = (o, l) => ({ offset: o, limit: l });
	same(`${kind}: biggest = biggest`, await call('biggest', { dump: d }), pagedCli(['biggest', f], 0, 50), P(0, 50));
	same(`${kind}: biggest of ${id} = -e 'object ID | dominated' biggest`, await call('biggest', { dump: d, object: id }),
	     pagedCli(['biggest', f, '-e', `object ${id} | dominated`], 0, 50), P(0, 50));
	same(`${kind}: biggest of the select = -e 'SELECT' biggest (the top of its set)`,
	     await call('biggest', { dump: d, steps: `${top.select} | referrers` }),
	     pagedCli(['biggest', f, '-e', `${top.select} | referrers`], 0, 50), P(0, 50));
	same(`${kind}: biggest depth 2, the second page = biggest -d 2`, await call('biggest', { dump: d, depth: 2, offset: 50, limit: 50 }),
	     pagedCli(['-d', '2', 'biggest', f], 50, 50), P(50, 50));
	same(`${kind}: classes by instances, reversed = classes --sort instances -r`,
	     await call('classes', { dump: d, sort: 'instances', reverse: true, offset: 5, limit: 20 }),
	     pagedCli(['--sort', 'instances', '-r', 'classes', f], 5, 20), P(5, 20));
	same(`${kind}: merged in by field, depth 3 = merged-in --by field -d 3`,
	     await call('merged', { dump: d, steps: top.select, direction: 'in', by: 'field', depth: 3 }),
	     pagedCli(['--by', 'field', '-d', '3', 'merged-in', f, '-e', top.select], 0, 50), P(0, 50));
	for (const w of ['referrers', 'referents'])
		same(`${kind}: ${w} of ${id} = -e 'object ID | ${w} | objects'`, await call(w, { dump: d, object: id, limit: 3 }),
		     pagedCli([f, '-e', `object ${id} | ${w} | objects`], 0, 3), P(0, 3));
	same(`${kind}: lifelines = lifelines`, await call('lifelines', { dump: d, object: id }), cli('lifelines', f, id));
	for (const dir of ['in', 'out', 'dom'])
		same(`${kind}: merged ${dir} of the cluster = merged-${dir}`, await call('merged', { dump: d, steps: top.select, direction: dir }),
		     pagedCli([`merged-${dir}`, f, '-e', top.select], 0, 50), P(0, 50));
	same(`${kind}: inspect duplicate-strings = inspect`, await call('inspect', { dump: d, name: 'duplicate-strings', limit: 5 }),
	     pagedCli(['inspect', f, 'duplicate-strings'], 0, 5), P(0, 5));
	same(`${kind}: diff base final = diff`, await call('diff', { old: h.base, new: d, limit: 10 }),
	     pagedCli(['diff', real.base, f], 0, 10), P(0, 10));
	same(`${kind}: query new against the baseline = -b -e new`, await call('query', { dump: d, baseline: h.base, steps: 'new' }),
	     pagedCli(['-b', real.base, f, '-e', 'new'], 0, 50), P(0, 50));

	// a tool error: the CLI's own one line
	const none = '0x7ffffffffff1';
	for (const t of ['paths', 'lifelines']) {
		const bad = await call(t, { dump: d, object: none });
		const line = cliError(t, f, none);
		check(`${kind}: ${t} of no such object: isError with the CLI's line`, bad.error === line && /no object/.test(line),
		      () => `${JSON.stringify(bad)} vs ${line}`);
	}
	return h;
}

const jvm = await hunt('JVM', opt.jvm, 'hprof');
const v8 = await hunt('V8', opt.v8, 'heapsnapshot');

// ---- several dumps at once, and one closed ----
const open = await call('dumps', {});
const want = [...Object.values(jvm ?? {}), ...Object.values(v8 ?? {})].sort();
check('dumps lists the six open', isDeepStrictEqual((open.dumps ?? []).map((x) => x.dump).sort(), want), () => JSON.stringify(open));
const realOr = (p) => { try { return fs.realpathSync(p); } catch (e) { return e.message; } };
check('dumps: resolved paths', (open.dumps ?? []).every((x) => path.isAbsolute(x.path) && realOr(x.path) === x.path),
      () => JSON.stringify(open));
if (jvm && v8) {
	// the JVM's summary again, after the V8 hunt: the dumps kept apart
	same('the JVM dump still answers after the V8 hunt', await call('summary', { dump: jvm.final }),
	     cli('info', fs.realpathSync(path.join(opt.jvm, 'final.hprof'))));
	const c = await call('close', { dump: v8.base });
	check('close', c.closed === v8.base, () => JSON.stringify(c));
	const gone = await call('summary', { dump: v8.base });
	check('a closed handle is an error', typeof gone.error === 'string' && gone.error.includes(v8.base), () => JSON.stringify(gone));
	const after = await call('dumps', {});
	check('dumps after close', (after.dumps ?? []).length === want.length - 1 && !after.dumps.some((x) => x.dump === v8.base),
	      () => JSON.stringify(after));
}

// ---- up to 16 open at once (the JVM's final again and again), the 17th refused ----
{
	const fin = path.join(opt.jvm, 'final.hprof');
	const extra = [];
	let refused = null;
	for (let i = 0; i < 20 && refused === null; i++) {
		const o = await call('open', { path: fin });
		if (o.error !== undefined)
			refused = o.error;
		else
			extra.push(o.dump);
	}
	const n = (await call('dumps', {})).dumps?.length;
	check('16 dumps open at once, the 17th refused', n === 16 && refused === '16 dumps are open, the most at once: close one',
	      () => `${n} open, then: ${refused}`);
	check('handles not reused', new Set([...want, ...extra]).size === want.length + extra.length, () => extra.join(','));
	for (const x of extra)
		await call('close', { dump: x });
}

// ---- files outside the directories ----
const outside = fs.realpathSync(process.argv[1]); // this script: outside the three directories
const rel = path.relative(opt.scratch, outside);
const dotdot = `${opt.scratch}/${rel}`; // not normalised: the ../ go to the server as they are
check('the ../ path is one with ../', dotdot.includes('/../'), dotdot);
const esc = await call('open', { path: dotdot });
check('a ../ escape is refused', typeof esc.error === 'string' && esc.error.endsWith(': outside the directories this server was given'),
      () => JSON.stringify(esc));
const link = path.join(opt.scratch, 'out.heapsnapshot');
fs.rmSync(link, { force: true });
fs.symlinkSync(outside, link);
const sl = await call('open', { path: link });
check('a symlink out of the directories is refused', typeof sl.error === 'string' && sl.error.endsWith(': outside the directories this server was given'),
      () => JSON.stringify(sl));
const ldir = path.join(opt.scratch, 'outdir');
fs.rmSync(ldir, { force: true });
fs.symlinkSync(path.dirname(outside), ldir);
const sd = await call('open', { path: path.join(ldir, path.basename(outside)) });
check('a path through a symlinked directory out is refused', typeof sd.error === 'string' && sd.error.includes('outside the directories'),
      () => JSON.stringify(sd));
const ex = await call('open', { path: path.join(opt.scratch, 'no-such.hprof') });
check('a missing file: isError, the system\'s reason', typeof ex.error === 'string' && ex.error.endsWith('No such file or directory'),
      () => JSON.stringify(ex));

await client.close();
// all it wrote on stderr read (under the sanitizers, their report at its exit)
await new Promise((resolve) => {
	const e = transport.stderr;
	if (!e || e.readableEnded || e.destroyed)
		return resolve();
	e.on('close', resolve);
	e.on('end', resolve);
	setTimeout(resolve, 10000).unref();
});
check('the server wrote nothing on stderr', stderr === '', stderr);
console.log(JSON.stringify({ ok: failures.length === 0 && passed > 0, passed, failed: failures.length, failures }));
process.exit(failures.length === 0 ? 0 : 1);
