// report-browser.js CHROMIUM REPORT.html — for the tests: load a report
// in headless Chromium over the DevTools protocol (a pipe, no network),
// and print one JSON object of what the page shows: the figures read
// off the rendered DOM, screenshots of the treemap and the sunburst
// reduced to how many of their pixels are drawn, what real mouse clicks
// on them did, and every script error, dialog and network request.
// Asserts nothing itself: the test compares.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const [chromium, file] = process.argv.slice(2);
const pageUrl = 'file://' + path.resolve(file);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-chromium-'));
const proc = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe',
	'--no-first-run', '--no-default-browser-check', '--disable-extensions', '--hide-scrollbars',
	'--user-data-dir=' + profile, '--window-size=1400,1000', 'about:blank'],
	{ stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], detached: true }); // a group: all its processes go at the end
const toChrome = proc.stdio[3], fromChrome = proc.stdio[4];
let nextId = 1, buf = Buffer.alloc(0);
const pending = new Map(), listeners = [];
fromChrome.on('data', d => {
	buf = Buffer.concat([buf, d]);
	let z;
	while ((z = buf.indexOf(0)) >= 0) {
		const msg = JSON.parse(buf.slice(0, z).toString('utf8'));
		buf = buf.slice(z + 1);
		if (msg.id && pending.has(msg.id)) {
			const { ok, fail } = pending.get(msg.id);
			pending.delete(msg.id);
			if (msg.error) fail(new Error(JSON.stringify(msg.error))); else ok(msg.result);
		} else
			listeners.forEach(f => f(msg));
	}
});
function send(method, params, sessionId) {
	const id = nextId++;
	const m = { id, method, params: params || {} };
	if (sessionId) m.sessionId = sessionId;
	toChrome.write(JSON.stringify(m) + '\0');
	return new Promise((ok, fail) => pending.set(id, { ok, fail }));
}
function once(method, sessionId) {
	return new Promise(ok => listeners.push(function f(m) {
		if (m.method === method && (!sessionId || m.sessionId === sessionId)) {
			listeners.splice(listeners.indexOf(f), 1);
			ok(m.params);
		}
	}));
}

// PNG (8-bit RGB or RGBA, not interlaced, as Chromium writes it) to pixels
function decodePng(b) {
	let p = 8, w = 0, h = 0, ct = 0;
	const idat = [];
	while (p < b.length) {
		const len = b.readUInt32BE(p), type = b.toString('ascii', p + 4, p + 8);
		const data = b.slice(p + 8, p + 8 + len);
		if (type === 'IHDR') { w = data.readUInt32BE(0); h = data.readUInt32BE(4); ct = data[9]; }
		if (type === 'IDAT') idat.push(data);
		p += 12 + len;
	}
	const bpp = ct === 6 ? 4 : 3, raw = zlib.inflateSync(Buffer.concat(idat)), stride = w * bpp;
	const out = Buffer.alloc(w * h * bpp);
	for (let y = 0; y < h; y++) {
		const f = raw[y * (stride + 1)], src = raw.slice(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let x = 0; x < stride; x++) {
			const a = x >= bpp ? out[y * stride + x - bpp] : 0, up = y ? out[(y - 1) * stride + x] : 0;
			const c = x >= bpp && y ? out[(y - 1) * stride + x - bpp] : 0;
			let v = src[x];
			if (f === 1) v += a;
			else if (f === 2) v += up;
			else if (f === 3) v += (a + up) >> 1;
			else if (f === 4) { const q = a + up - c, pa = Math.abs(q - a), pb = Math.abs(q - up), pc = Math.abs(q - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? up : c; }
			out[y * stride + x] = v & 255;
		}
	}
	return { w, h, bpp, px: out };
}
// the share of pixels that are neither white nor the given backgrounds
function drawnShare(png, backgrounds) {
	let drawn = 0;
	for (let i = 0; i < png.w * png.h; i++) {
		const r = png.px[i * png.bpp], g = png.px[i * png.bpp + 1], b = png.px[i * png.bpp + 2];
		if (!backgrounds.some(([R, G, B]) => Math.abs(r - R) + Math.abs(g - G) + Math.abs(b - B) < 8))
			drawn++;
	}
	return drawn / (png.w * png.h);
}

async function main() {
	const result = { errors: [], dialogs: [], requests: [] };
	const { targetInfos } = await send('Target.getTargets');
	const page = targetInfos.find(t => t.type === 'page');
	const { sessionId: s } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
	listeners.push(m => {
		if (m.sessionId !== s) return;
		if (m.method === 'Runtime.exceptionThrown') result.errors.push(m.params.exceptionDetails.exception ? m.params.exceptionDetails.exception.description : m.params.exceptionDetails.text);
		if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') result.errors.push(m.params.args.map(a => a.value).join(' '));
		if (m.method === 'Page.javascriptDialogOpening') { result.dialogs.push(m.params.message); send('Page.handleJavaScriptDialog', { accept: true }, s); }
		if (m.method === 'Network.requestWillBeSent' && m.params.request.url !== pageUrl) result.requests.push(m.params.request.url);
	});
	await send('Page.enable', {}, s);
	await send('Runtime.enable', {}, s);
	await send('Network.enable', {}, s);
	const loaded = once('Page.loadEventFired', s);
	const t0 = Date.now();
	await send('Page.navigate', { url: pageUrl }, s);
	await loaded;
	result.load_ms = Date.now() - t0;
	const ev = async expr => {
		const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true }, s);
		if (r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(r.exceptionDetails));
		return r.result.value;
	};
	result.ready = await ev('document.body.dataset.ready === "1"');
	result.treemap_cells = await ev('window.heapwalkReport.treemap.cells.length');
	result.timings = await ev('window.heapwalkReport.timings');
	result.title = await ev('document.title');
	result.page = await ev(`(() => {
		const n = s => Number(String(s).replace(/,/g, ''));
		const q = (sel, root) => Array.from((root || document).querySelectorAll(sel));
		const dump = {};
		q('#dump-table td[data-k]').forEach(td => dump[td.dataset.k] = td.textContent);
		return {
			img: q('img').length, scripts: q('script').length,
			banner: (document.getElementById('warnings') || {}).textContent || null,
			h1: document.querySelector('h1').textContent,
			set: (document.getElementById('set') || {}).textContent || null,
			dump: dump,
			roots: q('#roots-table tbody tr').map(tr => [tr.cells[0].textContent, n(tr.cells[1].textContent), n(tr.cells[2].textContent)]),
			classes: q('#classes-table tbody tr').map(tr => [tr.cells[0].textContent, n(tr.cells[1].textContent), n(tr.cells[2].textContent), n(tr.cells[3].textContent)]),
			classes_note: document.querySelector('#classes .more').textContent,
			suspects: q('#suspects-list .suspect').map(d => [d.querySelector('h3').textContent, n(d.querySelector('.retained').textContent),
				q('table.path tbody tr', d.closest('.card')).map(tr => tr.cells[1].textContent)]),
			// each card: its suspects' numbers (1-based), its point, its path tables
			cards: q('#suspects-list .card').map(c => [q('.suspect h3', c).map(h => n(h.textContent.replace(/^Suspect (\\d+):.*$/s, '$1'))),
				c.dataset.point, q('table.path', c).length]),
			heapshot: (document.getElementById('heapshot') || {}).textContent || null,
			biggest: q('#biggest-tree tbody tr').filter(tr => !tr.classList.contains('morerow')).map(tr => [tr.cells[0].textContent.replace(/^[\\u25B8\\u25BE]/, ''), n(tr.cells[1].textContent), n(tr.cells[2].textContent)]),
			inspections: q('#inspections-list table.inspection').map(t => [t.dataset.name, q('tbody tr', t).map(tr => [tr.cells[1].textContent, n(tr.cells[2].textContent), n(tr.cells[3].textContent)])]),
			insp_notes: q('#inspections-list .insp-note').map(p => p.textContent),
			insp_none: q('#inspections-list .insp-none').map(p => p.textContent),
			baseline: (document.getElementById('baseline-summary') || {}).textContent || null,
			new_classes: q('#new-classes-table tbody tr').map(tr => [tr.cells[0].textContent, n(tr.cells[1].textContent), n(tr.cells[2].textContent)]),
			leaks: (document.getElementById('leaks-summary') || {}).textContent || null,
			// each cluster: its number, count, leaked objects, the path's steps as shown, the select
			leak_clusters: q('#leaks-table tbody tr').map(tr => [n(tr.cells[0].textContent), n(tr.cells[1].textContent),
				n(tr.cells[2].textContent), q('li', tr).map(li => li.textContent), tr.querySelector('.leak-select').textContent]),
			text: document.body.innerText.length,
			// a control or invisible format character on the page as text
			raw_controls: /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u.test(document.body.innerText),
			// the first class row's cells' tooltips
			class_tips: q('#classes-table tbody tr').slice(0, 1).map(tr => Array.from(tr.cells).map(td => td.title)),
			// the classes each REPORT_FILTERS regex leaves (typed into the filter)
			filtered: ${JSON.stringify(JSON.parse(process.env.REPORT_FILTERS || '[]'))}.map(v => {
				const f = document.querySelector('#classes input');
				f.value = v;
				f.dispatchEvent(new Event('input'));
				const rows = q('#classes-table tbody tr').map(tr => tr.cells[0].textContent);
				f.value = '';
				f.dispatchEvent(new Event('input'));
				return rows;
			})
		};
	})()`);
	// the pictures: each canvas scrolled into view, its pixels (the clip in
	// the document's coordinates), a click (in the viewport's)
	for (const id of ['treemap', 'sunburst']) {
		const r = await ev(`(() => { const c = document.getElementById('${id}-canvas'); c.scrollIntoView({block: 'center'});
			const b = c.getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height, sx: window.scrollX, sy: window.scrollY }; })()`);
		const shot = await send('Page.captureScreenshot', { format: 'png', clip: { x: r.x + r.sx, y: r.y + r.sy, width: r.w, height: r.h, scale: 1 } }, s);
		if (process.env.REPORT_SHOTS) // for a person to look at
			fs.writeFileSync(path.join(process.env.REPORT_SHOTS, id + '.png'), Buffer.from(shot.data, 'base64'));
		const png = decodePng(Buffer.from(shot.data, 'base64'));
		const pic = { w: png.w, h: png.h, drawn: drawnShare(png, [[255, 255, 255], [0xee, 0xf1, 0xf5]]) };
		// the biggest thing one click opens: a treemap cell of the first
		// level, or a sunburst segment of the first ring, with children
		const target = await ev(id === 'treemap'
			? `(() => { const st = window.heapwalkReport.treemap; const c = st.cells.filter(c => c.depth === 1 && c.n.kids.length && !c.n.elided)
				.sort((a, b) => b.w * b.h - a.w * a.h)[0]; return c ? { x: c.x + c.w / 2, y: c.y + Math.min(c.h / 2, 7), label: c.n.label, id: c.n.id } : null; })()`
			: `(() => { const st = window.heapwalkReport.sunburst; const S = 600, R = S / 2 - 4, R0 = R * 0.2, ring = (R - R0) / 6;
				const g = st.segs.filter(g => g.depth === 1 && g.n.kids.length && !g.n.elided).sort((a, b) => (b.a1 - b.a0) - (a.a1 - a.a0))[0];
				if (!g) return null; const a = (g.a0 + g.a1) / 2, rr = R0 + ring / 2;
				return { x: S / 2 + rr * Math.cos(a), y: S / 2 + rr * Math.sin(a), label: g.n.label, id: g.n.id }; })()`);
		pic.crumbs_before = await ev(`document.getElementById('${id}-crumbs').textContent`);
		if (id === 'sunburst') // the first ring's angle against the root's children's share of it
			pic.ring1 = await ev(`(() => { const st = window.heapwalkReport.sunburst, c = st.centre;
				const drawn = st.segs.filter(g => g.depth === 1).reduce((t, g) => t + (g.a1 - g.a0), 0);
				const kids = c.kids.reduce((t, k) => t + k.retained, 0);
				return { drawn: drawn, want: 2 * Math.PI * kids / c.retained, kids: c.kids.length,
					 thin: c.kids.filter(k => 2 * Math.PI * k.retained / c.retained <= 0.002).length }; })()`);
		if (target) {
			const click = async (x, y) => {
				for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
					await send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 }, s);
			};
			await click(r.x + target.x, r.y + target.y);
			pic.clicked = target;
			pic.crumbs_after = await ev(`document.getElementById('${id}-crumbs').textContent`);
			pic.crumb_last = await ev(`Array.from(document.querySelectorAll('#${id}-crumbs .crumb')).pop().textContent`);
			if (id === 'sunburst') { // the hollow centre goes back
				await click(r.x + 300, r.y + 300);
				pic.crumbs_back = await ev(`document.getElementById('${id}-crumbs').textContent`);
			} else { // the first breadcrumb zooms out
				await ev(`document.querySelector('#treemap-crumbs .crumb').click()`);
				pic.crumbs_back = await ev(`document.getElementById('${id}-crumbs').textContent`);
			}
		}
		result[id] = pic;
	}
	// the layout, the page loaded again at each width: whether the
	// document scrolls sideways, every table cell that sticks out of its
	// card (a suspect's box, else its section's content) or whose content
	// sticks out of the cell, and each path table's name column's width
	result.layout = [];
	for (const width of [1400, 800, 480]) {
		await send('Emulation.setDeviceMetricsOverride', { width, height: 1000, deviceScaleFactor: 1, mobile: false }, s);
		const again = once('Page.loadEventFired', s);
		await send('Page.reload', {}, s);
		await again;
		result.layout.push(await ev(`(() => {
			const de = document.documentElement, out = [];
			for (const c of document.querySelectorAll('td, th')) {
				const b = c.getBoundingClientRect();
				if (b.width === 0 && b.height === 0)
					continue;
				const box = c.closest('.card') || c.closest('section');
				const r = box.getBoundingClientRect(), st = getComputedStyle(box);
				const right = box.matches('.card') ? r.right - parseFloat(st.borderRightWidth) : r.right - parseFloat(st.paddingRight);
				if (b.right > right + 0.5 || c.scrollWidth > c.clientWidth + 1)
					out.push({ text: c.textContent.slice(0, 80), right: b.right, box: right, scroll: c.scrollWidth, client: c.clientWidth });
			}
			const cols = Array.from(document.querySelectorAll('#suspects-list table.path')).map(t =>
				[t.tHead.rows[0].cells[0].getBoundingClientRect().width, t.closest('.card').getBoundingClientRect().width]);
			return { width: ${width}, scroll_width: de.scrollWidth, client_width: de.clientWidth, overflowing: out.length,
				first: out.slice(0, 3), class_columns: cols, path_tables: cols.length };
		})()`));
	}
	process.stdout.write(JSON.stringify(result) + '\n');
}

const timer = setTimeout(() => {
	process.stderr.write('report-browser: timed out\n');
	try { process.kill(-proc.pid, 'SIGKILL'); } catch (e) { proc.kill('SIGKILL'); }
	process.exit(3);
}, 90000);
main().then(() => 0, e => { process.stderr.write('report-browser: ' + e.stack + '\n'); return 2; }).then(rc => {
	clearTimeout(timer);
	// its profile removed once the browser's processes are gone (its
	// helpers may write a moment longer: tried again, then left)
	const clean = tries => {
		try {
			fs.rmSync(profile, { recursive: true, force: true });
		} catch (e) {
			if (tries > 0)
				return setTimeout(() => clean(tries - 1), 200);
		}
		process.exit(rc);
	};
	proc.on('exit', () => clean(20));
	try { process.kill(-proc.pid, 'SIGKILL'); } catch (e) { proc.kill('SIGKILL'); }
});
