// html.js — the report's script, compiled into heapwalk (html.h). It
// draws the page from the JSON document #hw-data with text nodes only:
// no string of the dump is ever parsed as markup.
'use strict';
(function () {
	const t0 = performance.now();
	// Every string of the dump shown as the terminal shows it: control
	// and invisible format characters escaped (\x1b, \u{202e}), never
	// raw (a name with U+202E could pass for another), and a backslash
	// doubled (a name holding the four characters \x1b is not one
	// holding ESC). The texts heapwalk escaped already (the warnings:
	// info.warning_messages) are shown as they are, not escaped twice;
	// the set's expression (expr) keeps its backslashes as typed (they
	// are its regexes' and quotes' own). RAW: the name as the dump has
	// it, for the filters, which match either as the CLI's do.
	const ESCAPED = /[\\\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0001}\u{e0020}-\u{e007f}]/gu;
	const RAW = new Map();
	function shown(s, code) {
		return s.replace(ESCAPED, ch => {
			const c = ch.codePointAt(0);
			return c === 92 ? (code ? ch : '\\\\') : c === 10 ? '\\n' : c === 9 ? '\\t' : c === 13 ? '\\r' :
				c < 0x100 ? '\\x' + c.toString(16).padStart(2, '0') : '\\u{' + c.toString(16).padStart(4, '0') + '}';
		});
	}
	const D = JSON.parse(document.getElementById('hw-data').textContent, (k, v) => {
		if (k === 'warning_messages' && Array.isArray(v)) // escaped by heapwalk: as they were
			return v.map(s => typeof s === 'string' && RAW.has(s) ? RAW.get(s) : s);
		if (typeof v !== 'string')
			return v;
		const s = shown(v, k === 'expr');
		if (s !== v)
			RAW.set(s, v);
		return s;
	});
	// a filter's regex finds a name as shown or as the dump has it
	function matches(re, name) { return re.test(name) || (RAW.has(name) && re.test(RAW.get(name))); }
	const timings = { parse_ms: performance.now() - t0 }; // for whoever measures the page
	const app = document.getElementById('app');
	const KINDS = ['root', 'instance', 'object array', 'primitive array', 'class'];
	const KIND_COLORS = ['#9aa5b1', '#4e79a7', '#59a14f', '#f28e2b', '#b07aa1'];
	const ELIDED_COLOR = '#c9ced6';

	// el('td', {className: 'n'}, 'text', child...): an element, its
	// attributes set as properties or data-*, its children text or nodes
	function el(tag, attrs, ...kids) {
		const e = document.createElement(tag);
		for (const k in attrs || {}) {
			if (k.startsWith('data-'))
				e.setAttribute(k, attrs[k]);
			else
				e[k] = attrs[k];
		}
		for (const k of kids)
			if (k !== null && k !== undefined)
				e.appendChild(typeof k === 'string' || typeof k === 'number' ? document.createTextNode(String(k)) : k);
		return e;
	}
	const NF = new Intl.NumberFormat('en-US'); // one: toLocaleString makes one a call
	// a long name as text with a line break allowed after each of its
	// separators (.NET's "System.Collections.Generic.List`1[...]" is one
	// word): the <wbr> elements add no text, so copying it copies the name
	function wrappable(s) {
		if (s.length < 24)
			return s;
		const f = document.createDocumentFragment();
		let from = 0;
		for (let i = 0; i < s.length; i++)
			if ('.,[(<`/:$+'.includes(s[i]) && i + 1 < s.length && i + 1 - from >= 2) {
				f.appendChild(document.createTextNode(s.slice(from, i + 1)));
				f.appendChild(document.createElement('wbr'));
				from = i + 1;
			}
		f.appendChild(document.createTextNode(s.slice(from)));
		return f;
	}
	function num(n) { return n === null || n === undefined ? '' : NF.format(n); }
	// as heapwalk's text reports say it: 1024-based, three digits
	function human(b) {
		const unit = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
		if (b < 0) // a delta
			return '-' + human(-b);
		if (b < 1024)
			return b + ' B';
		let v = b, u = 0;
		while (v >= 1023.5 && u < 5) { v /= 1024; u++; }
		return (v < 9.995 ? v.toFixed(2) : v < 99.95 ? v.toFixed(1) : v.toFixed(0)) + ' ' + unit[u];
	}
	function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(1) + '%' : ''; }
	function ncell(n, key) { return el('td', { className: 'n', 'data-k': key }, num(n)); }
	function bcell(n, key) { return el('td', { className: 'n', 'data-k': key, title: human(n) + ' (' + num(n) + ' bytes)' }, num(n)); }
	// a figure of an inspection or a diff: bytes or a count, by its name
	const BYTE_KEYS = new Set(['shallow', 'retained', 'retained_lb', 'wasted', 'bytes', 'bytes_before', 'bytes_delta',
		'new_bytes', 'gone_bytes']);
	function fcell(n, key) { return BYTE_KEYS.has(key) ? bcell(n, key) : ncell(n, key); }
	function section(id, title, ...kids) { return el('section', { id: id }, el('h2', {}, title), ...kids); }

	const info = D.info;
	const heapBytes = info.heap_bytes;

	// ---- the tree: rows [parent, name, "id", shallow, retained, flags]
	// or [parent, -1, count, shallow, retained, largest] (elided) ----
	function buildTree(t, title) {
		const root = { label: title, id: null, shallow: 0, retained: t.retained, kind: 0, kids: [], parent: null, depth: 0, root: true };
		const nodes = t.rows.map(r => r[1] < 0
			? { elided: true, count: r[2], shallow: r[3], retained: r[4], largest: r[5], kids: [], label: '' }
			: { label: t.names[r[1]], id: r[2], shallow: r[3], retained: r[4], kind: r[5] & 7, isNew: (r[5] & 8) !== 0, kids: [] });
		t.rows.forEach((r, i) => {
			const p = r[0] < 0 ? root : nodes[r[0]];
			nodes[i].parent = p;
			nodes[i].depth = p.depth + 1;
			p.kids.push(nodes[i]);
		});
		return root;
	}
	function crumbsOf(n) { const a = []; for (; n; n = n.parent) a.unshift(n); return a; }
	function nodeText(n) {
		return n.small ? num(n.count) + ' more objects, each too small to draw' : n.elided ? num(n.count) + ' more objects (elided)'
			: n.root ? n.label : n.label + (n.id ? ' @' + n.id : '');
	}

	// ---- an expandable dominator tree as a table ----
	function treeTable(root, id) {
		const tbody = el('tbody');
		const table = el('table', { className: 'tree', id: id },
			el('thead', {}, el('tr', {}, el('th', {}, 'object'), el('th', { className: 'n' }, 'shallow'),
				el('th', { className: 'n' }, 'retained'), el('th', { className: 'n' }, '% of heap'))), tbody);
		function row(n) {
			const tr = el('tr', { className: n.elided ? 'elided' : n.isNew ? 'new' : '' });
			const open = el('span', { className: 'toggle' }, n.kids.length ? '\u25B8' : '');
			const label = el('td', { className: 'label' }, open, wrappable(nodeText(n)));
			label.style.setProperty('--d', n.depth - 1);
			tr.append(label, bcell(n.shallow, 'shallow'), bcell(n.retained, 'retained'),
				el('td', { className: 'n' }, pct(n.retained, heapBytes)));
			if (n.elided)
				tr.title = 'the largest of them retains ' + human(n.largest);
			let sink = null;
			tr.collapse = () => {
				if (!sink)
					return;
				sink.shown.forEach(r => { if (r.collapse) r.collapse(); r.remove(); });
				sink = null;
				open.textContent = '\u25B8';
			};
			open.addEventListener('click', () => {
				if (!n.kids.length)
					return;
				if (sink)
					return tr.collapse();
				sink = rowSink(tr);
				listKids(n, sink, 0);
				open.textContent = '\u25BE';
			});
			return tr;
		}
		// where rows go: after `after`, in order, remembered for a collapse
		function rowSink(after) {
			return {
				after: after, shown: [],
				add(r) { if (this.after) this.after.after(r); else tbody.appendChild(r); this.after = r; this.shown.push(r); }
			};
		}
		// a node's children, 50 at a time: a "more" row shows the next
		function listKids(n, sink, from) {
			const STEP = 50;
			for (const k of n.kids.slice(from, from + STEP))
				sink.add(row(k));
			if (n.kids.length > from + STEP) {
				const more = el('tr', { className: 'morerow' });
				const b = el('button', {}, 'show ' + Math.min(STEP, n.kids.length - from - STEP) + ' more of ' +
					num(n.kids.length - from - STEP));
				const td = el('td', { className: 'label', colSpan: 4 }, b);
				td.style.setProperty('--d', n.depth);
				more.appendChild(td);
				sink.add(more);
				b.addEventListener('click', () => {
					sink.after = more;
					listKids(n, sink, from + STEP);
					more.remove();
				});
			}
		}
		listKids(root, rowSink(null), 0);
		return table;
	}

	// ---- squarified treemap layout (Bruls, Huizing, van Wijk) ----
	function squarify(items, x, y, w, h, out) {
		let total = 0;
		for (const it of items) total += it.v;
		if (total <= 0 || w <= 0 || h <= 0)
			return;
		const scale = w * h / total;
		let i = 0;
		while (i < items.length) {
			const side = Math.min(w, h);
			let row = [], sum = 0, worst = Infinity;
			while (i < items.length) {
				const a = items[i].v * scale;
				const s2 = sum + a;
				const rmax = Math.max(row.length ? row[0].v * scale : a, a), rmin = a;
				const wr = Math.max(side * side * rmax / (s2 * s2), (s2 * s2) / (side * side * rmin));
				if (row.length && wr > worst)
					break;
				row.push(items[i]); sum = s2; worst = wr; i++;
			}
			const thick = sum / side;
			let off = 0;
			for (const it of row) {
				const len = it.v * scale / thick;
				if (w >= h)
					out.push({ it: it, x: x, y: y + off, w: thick, h: len });
				else
					out.push({ it: it, x: x + off, y: y, w: len, h: thick });
				off += len;
			}
			if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
		}
	}
	function packageOf(label) {
		const s = label.replace(/^class /, '').replace(/^\[+L?/, '').replace(/;$/, '');
		const i = s.lastIndexOf('.');
		return i > 0 ? s.slice(0, i) : '';
	}
	function hashHue(s) { let h = 2166136261; for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); } return (h >>> 0) % 360; }
	function colorOf(n, by) {
		if (n.elided)
			return ELIDED_COLOR;
		if (by === 'package')
			return 'hsl(' + hashHue(packageOf(n.label)) + ',55%,62%)';
		return KIND_COLORS[n.kind] || KIND_COLORS[1];
	}
	function setupCanvas(c, w, h) {
		const r = window.devicePixelRatio || 1;
		c.width = Math.round(w * r); c.height = Math.round(h * r);
		c.style.width = w + 'px'; c.style.height = h + 'px';
		const g = c.getContext('2d');
		g.setTransform(r, 0, 0, r, 0, 0);
		return g;
	}
	function crumbs(div, n, go) {
		div.textContent = '';
		crumbsOf(n).forEach((a, i, all) => {
			if (i)
				div.appendChild(el('span', { className: 'crumbsep' }, '\u203A'));
			const s = el('span', { className: 'crumb' }, i ? nodeText(a) : a.label);
			if (i < all.length - 1)
				s.addEventListener('click', () => go(a));
			div.appendChild(s);
		});
		div.appendChild(el('span', { className: 'muted' }, '  ' + human(n.retained) + ' (' + pct(n.retained, heapBytes) + ' of the heap)'));
	}
	function tipper() {
		const tip = el('div', { className: 'tip' });
		document.body.appendChild(tip);
		return {
			show(ev, n) {
				tip.textContent = nodeText(n) + ' \u2014 retained ' + human(n.retained) + ' (' + pct(n.retained, heapBytes) +
					'), shallow ' + human(n.shallow) + (n.elided ? ', largest ' + human(n.largest) : '');
				tip.style.display = 'block';
				tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 300) + 'px';
				tip.style.top = (ev.clientY + 14) + 'px';
			},
			hide() { tip.style.display = 'none'; }
		};
	}

	function treemap(root, id) {
		const W = Math.max(280, Math.min(1400, (document.documentElement.clientWidth || 1200) - 60)), H = 560;
		const canvas = el('canvas', { id: id + '-canvas' });
		const bar = el('div', { className: 'crumbs', id: id + '-crumbs' });
		const by = el('select', {}, el('option', { value: 'kind' }, 'kind'), el('option', { value: 'package' }, 'package'));
		const legend = el('span', { className: 'muted' });
		const state = { zoom: root, cells: [], by: 'kind' };
		const tip = tipper();
		const g = setupCanvas(canvas, W, H);
		function items(n) {
			const a = n.kids.map(k => ({ v: k.retained, n: k }));
			const self = n.retained - a.reduce((s, x) => s + x.v, 0);
			if (self > 0)
				a.push({ v: self, n: null }); // the node's own bytes: left blank
			return a;
		}
		function layout(n, x, y, w, h, depth) {
			const out = [];
			squarify(items(n), x, y, w, h, out);
			for (const r of out) {
				if (!r.it.n)
					continue;
				state.cells.push({ n: r.it.n, x: r.x, y: r.y, w: r.w, h: r.h, depth: depth });
				const k = r.it.n;
				const head = r.h > 30 && r.w > 50 ? 14 : 0;
				if (k.kids.length && depth < 8 && r.w > 8 && r.h > 8 + head)
					layout(k, r.x + 2, r.y + 2 + head, r.w - 4, r.h - 4 - head, depth + 1);
			}
		}
		function draw() {
			state.cells = [];
			g.clearRect(0, 0, W, H);
			g.fillStyle = '#eef1f5';
			g.fillRect(0, 0, W, H);
			layout(state.zoom, 0, 0, W, H, 1);
			g.font = '11px system-ui, sans-serif';
			g.textBaseline = 'top';
			for (const c of state.cells) {
				g.fillStyle = colorOf(c.n, state.by);
				g.globalAlpha = Math.max(0.45, 1 - 0.08 * (c.depth - 1));
				g.fillRect(c.x, c.y, c.w, c.h);
				g.globalAlpha = 1;
				g.strokeStyle = 'rgba(255,255,255,0.9)';
				g.lineWidth = 1;
				g.strokeRect(c.x + 0.5, c.y + 0.5, Math.max(0, c.w - 1), Math.max(0, c.h - 1));
				if (c.w > 50 && c.h > 14) {
					g.save();
					g.beginPath(); g.rect(c.x + 2, c.y, c.w - 4, c.h); g.clip();
					g.fillStyle = '#10141c';
					g.fillText(nodeText(c.n) + '  ' + human(c.n.retained), c.x + 3, c.y + 2);
					g.restore();
				}
			}
			crumbs(bar, state.zoom, n => { state.zoom = n; draw(); });
			legend.textContent = state.by === 'kind'
				? '  colours: ' + KINDS.slice(1).join(', ') + ', elided (grey)' : '  colours: one per package';
		}
		function at(ev) {
			const b = canvas.getBoundingClientRect(), k = W / b.width; // drawn at W, shown narrower in a narrow window
			const x = (ev.clientX - b.left) * k, y = (ev.clientY - b.top) * k;
			let best = null;
			for (const c of state.cells)
				if (x >= c.x && x < c.x + c.w && y >= c.y && y < c.y + c.h && (!best || c.depth > best.depth))
					best = c;
			return best;
		}
		canvas.addEventListener('click', ev => {
			let c = at(ev);
			if (!c)
				return;
			// zoom one level: into the child of the zoomed node the click is in
			let n = c.n;
			while (n.parent && n.parent !== state.zoom)
				n = n.parent;
			if (n.kids.length) {
				state.zoom = n;
				draw();
			}
		});
		canvas.addEventListener('mousemove', ev => { const c = at(ev); if (c) tip.show(ev, c.n); else tip.hide(); });
		canvas.addEventListener('mouseleave', () => tip.hide());
		by.addEventListener('change', () => { state.by = by.value; draw(); });
		draw();
		window.heapwalkReport[id] = state;
		return el('div', {}, el('div', { className: 'controls' }, el('label', {}, 'colour by ', by), legend),
			bar, canvas, el('div', { className: 'more' },
				'Nesting is domination, area is retained size. Click a cell to zoom in, a name above to zoom out.'));
	}

	function sunburst(root, id) {
		const S = 600, R = S / 2 - 4, R0 = R * 0.2, RINGS = 6;
		const canvas = el('canvas', { id: id + '-canvas' });
		const bar = el('div', { className: 'crumbs', id: id + '-crumbs' });
		const state = { centre: root, segs: [] };
		const tip = tipper();
		const g = setupCanvas(canvas, S, S);
		const ring = (R - R0) / RINGS;
		// each child its own segment, but those too thin to draw one by
		// one: one grey segment after the others with their totals, so
		// that a ring adds up to its parent (less the parent's own bytes)
		function place(n, a0, a1, depth) {
			const total = n.retained;
			const small = { elided: true, small: true, count: 0, shallow: 0, retained: 0, largest: 0, kids: [], label: '', parent: n };
			let a = a0;
			for (const k of n.kids) {
				const span = total > 0 ? (a1 - a0) * k.retained / total : 0;
				if (span > 0.002) {
					state.segs.push({ n: k, a0: a, a1: a + span, depth: depth });
					if (depth < RINGS)
						place(k, a, a + span, depth + 1);
					a += span;
				} else if (k.retained > 0) {
					small.count += k.elided ? k.count : 1;
					small.shallow += k.shallow;
					small.retained += k.retained;
					small.largest = Math.max(small.largest, k.elided ? k.largest : k.retained);
				}
			}
			if (small.count > 0)
				state.segs.push({ n: small, a0: a, a1: a + (a1 - a0) * small.retained / total, depth: depth });
		}
		function draw() {
			state.segs = [];
			g.clearRect(0, 0, S, S);
			place(state.centre, -Math.PI / 2, 1.5 * Math.PI, 1);
			const cx = S / 2, cy = S / 2;
			for (const s of state.segs) {
				g.beginPath();
				g.arc(cx, cy, R0 + ring * s.depth, s.a0, s.a1);
				g.arc(cx, cy, R0 + ring * (s.depth - 1), s.a1, s.a0, true);
				g.closePath();
				g.fillStyle = colorOf(s.n, 'kind');
				g.globalAlpha = Math.max(0.5, 1 - 0.08 * (s.depth - 1));
				g.fill();
				g.globalAlpha = 1;
				g.strokeStyle = '#ffffff';
				g.lineWidth = 1;
				g.stroke();
			}
			g.beginPath();
			g.arc(cx, cy, R0 - 2, 0, 2 * Math.PI);
			g.fillStyle = '#f5f7fa';
			g.fill();
			g.fillStyle = '#1d2330';
			g.font = '12px system-ui, sans-serif';
			g.textAlign = 'center';
			g.textBaseline = 'middle';
			const label = state.centre.root ? state.centre.label : state.centre.label.replace(/^.*\./, '');
			g.fillText(label.length > 22 ? label.slice(0, 21) + '\u2026' : label, cx, cy - 8);
			g.fillText(human(state.centre.retained), cx, cy + 8);
			g.textAlign = 'start';
			crumbs(bar, state.centre, n => { state.centre = n; draw(); });
		}
		function at(ev) {
			const b = canvas.getBoundingClientRect(), k = S / b.width;
			const x = (ev.clientX - b.left) * k - S / 2, y = (ev.clientY - b.top) * k - S / 2;
			const r = Math.hypot(x, y);
			if (r < R0)
				return 'centre';
			const depth = Math.floor((r - R0) / ring) + 1;
			let a = Math.atan2(y, x);
			if (a < -Math.PI / 2)
				a += 2 * Math.PI;
			for (const s of state.segs)
				if (s.depth === depth && a >= s.a0 && a < s.a1)
					return s;
			return null;
		}
		canvas.addEventListener('click', ev => {
			const s = at(ev);
			if (s === 'centre') {
				if (state.centre.parent) {
					state.centre = state.centre.parent;
					draw();
				}
			} else if (s && s.n.kids.length) {
				state.centre = s.n;
				draw();
			}
		});
		canvas.addEventListener('mousemove', ev => { const s = at(ev); if (s && s !== 'centre') tip.show(ev, s.n); else tip.hide(); });
		canvas.addEventListener('mouseleave', () => tip.hide());
		draw();
		window.heapwalkReport[id] = state;
		return el('div', {}, bar, canvas, el('div', { className: 'more' },
			'Rings are depth in the dominator tree, angles retained size; the objects too small to draw each are one grey segment. ' +
			'Click a segment to make it the centre, the centre to go back.'));
	}

	// ---- tables of the batch reports' rows ----
	function histogram(cv, id) {
		const cols = [['class', 'class', false], ['instances', 'instances', true], ['shallow', 'shallow', true], ['retained_lb', 'retained (lower bound)', true]];
		const rows = cv.rows.slice();
		let key = 'retained_lb', up = false;
		const LIMIT = 500;
		const filter = el('input', { type: 'text', placeholder: 'filter: a regular expression on the class name' });
		const note = el('div', { className: 'more' });
		const tbody = el('tbody');
		const head = el('tr');
		const ths = cols.map(([k, t, n]) => {
			const th = el('th', { className: 'sortable' + (n ? ' n' : ''), 'data-k': k }, t);
			th.addEventListener('click', () => { if (key === k) up = !up; else { key = k; up = false; } render(); });
			head.appendChild(th);
			return th;
		});
		function render() {
			let re = null;
			filter.classList.remove('error');
			// as --filter takes it: case counts, unless it starts (?i)
			const ci = filter.value.startsWith('(?i)'), src = ci ? filter.value.slice(4) : filter.value;
			try { re = src ? new RegExp(src, ci ? 'i' : '') : null; } catch (e) { filter.classList.add('error'); }
			const m = rows.filter(r => !re || matches(re, r.class));
			m.sort((a, b) => {
				const x = a[key], y = b[key];
				const c = typeof x === 'string' ? (x < y ? -1 : x > y ? 1 : 0) : y - x;
				return (up ? -c : c) || (a.class < b.class ? -1 : a.class > b.class ? 1 : 0);
			});
			tbody.textContent = '';
			for (const r of m.slice(0, LIMIT))
				tbody.appendChild(el('tr', {}, el('td', { className: 'label', 'data-k': 'class' }, wrappable(r.class)),
					ncell(r.instances, 'instances'), bcell(r.shallow, 'shallow'), bcell(r.retained_lb, 'retained_lb')));
			ths.forEach(th => { th.classList.toggle('sorted', th.dataset.k === key); th.classList.toggle('up', th.dataset.k === key && up); });
			note.textContent = m.length > LIMIT ? 'the first ' + LIMIT + ' of ' + num(m.length) + ' classes shown: filter to narrow' :
				num(m.length) + ' of ' + num(rows.length) + ' classes';
		}
		filter.addEventListener('input', render);
		render();
		return el('div', {}, el('div', { className: 'controls' }, filter),
			el('table', { id: id }, el('thead', {}, head), tbody), note);
	}
	function groupsTable(r) {
		const keys = r.rows.length ? Object.keys(r.rows[0]).filter(k => !['group', 'priority', 'objects', 'shallow', 'name'].includes(k)) : [];
		const t = el('table', { className: 'inspection', 'data-name': r.inspection },
			el('thead', {}, el('tr', {}, el('th', {}, 'priority'), el('th', {}, 'group'), el('th', { className: 'n' }, 'objects'),
				el('th', { className: 'n' }, 'shallow'), ...keys.map(k => el('th', { className: 'n' }, k)))),
			el('tbody', {}, ...r.rows.map(g => el('tr', {}, el('td', {}, g.priority), el('td', { className: 'label', 'data-k': 'name' }, wrappable(g.name)),
				ncell(g.objects, 'objects'), bcell(g.shallow, 'shallow'), ...keys.map(k => fcell(g[k], k))))));
		return t;
	}
	function pathTable(p) {
		return el('table', { className: 'path' },
			el('thead', {}, el('tr', {}, el('th', { className: 'label' }, 'from the GC root down'), el('th', { className: 'id' }, 'id'),
				el('th', { className: 'via' }, 'through'), el('th', { className: 'via' }, 'GC root'))),
			el('tbody', {}, ...p.rows.map(r => el('tr', {}, el('td', { className: 'label' }, wrappable(r.object)), el('td', { className: 'id' }, r.id || ''),
				el('td', { className: 'via' }, wrappable(r.via || '')), el('td', { className: 'via' }, wrappable(r.root || ''))))));
	}

	// ---- the page ----
	window.heapwalkReport = { data: D, timings: timings };
	const dumpName = info.dump;
	// a file of several heaps (Mono's heapshots): which one this is, as
	// info says it, and when it was taken (UTC, to the millisecond)
	const utc = ms => isNaN(new Date(ms)) ? String(ms) + ' ms after 1970' : new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
	const shot = info.heapshots ? (info.heapshot_list || [])[info.heapshot - 1] : null;
	const whichShot = info.heapshots ? 'heapshot ' + info.heapshot + ' of ' + info.heapshots +
		(shot && shot.time_ms ? ', taken ' + utc(shot.time_ms) : ', time unknown') : null;
	document.title = 'heapwalk: ' + dumpName + (whichShot ? ', heapshot ' + info.heapshot : '');
	const setTitle = D.expr ? 'the set: ' + D.expr : 'every object';
	app.appendChild(el('header', {}, el('h1', { id: 'title' }, 'heap report: ' + dumpName),
		whichShot ? el('div', { id: 'heapshot' }, whichShot) : null,
		el('div', { className: 'muted', id: 'set' }, D.generator + ' \u2014 ' + setTitle)));
	if (info.warnings > 0 || info.truncated_at) {
		const msgs = info.warning_messages || [];
		app.appendChild(el('div', { className: 'banner', id: 'warnings' },
			info.truncated_at ? el('div', { id: 'truncated' }, el('strong', {}, 'This dump is truncated: it ends at offset ' +
				num(info.truncated_at) + ', inside what it was writing, and what followed is missing.'),
				' The figures are of the part before the cut.') : null,
			el('strong', {}, num(info.warnings) + ' warning' + (info.warnings > 1 ? 's' : '') + ' while reading it:'),
			el('ul', {}, ...msgs.map(m => el('li', {}, m)))));
	}
	const nav = el('nav', {});
	app.appendChild(nav);
	const sections = [];
	let last = performance.now();
	function add(id, title, ...kids) { // each section's time, built and added
		sections.push([id, title]);
		app.appendChild(section(id, title, ...kids));
		timings[id + '_ms'] = performance.now() - last;
		last = performance.now();
	}

	const kv = (k, v, key) => el('tr', {}, el('td', {}, k), el('td', { className: 'n', 'data-k': key || '' }, v));
	const yes = b => b ? 'yes' : 'no';
	add('dump', 'The dump', el('table', { className: 'kv', id: 'dump-table' }, el('tbody', {},
		kv('format', info.format, 'format'),
		whichShot ? kv('heapshot', whichShot + (shot ? '; ' + num(shot.objects) + ' objects, ' + num(shot.bytes) + ' bytes' +
			(shot.complete ? '' : ', cut short') : ''), 'heapshot') : null,
		kv('objects', num(info.objects), 'objects'),
		kv('heap size', num(info.heap_bytes) + ' bytes (' + human(info.heap_bytes) + ')', 'heap_bytes'),
		kv('classes', num(info.classes), 'classes'),
		kv('references', num(info.references), 'references'),
		kv('in the set', num(info.set_objects) + ' objects, ' + num(info.set_bytes) + ' bytes', 'set'),
		info.generations ? kv('generations', info.generations.map(g => g.generation + ' ' + num(g.objects) + ' objects, ' +
			num(g.bytes) + ' bytes').join('; '), 'generations') : null,
		kv('GC root objects', num(info.gc_root_objects), 'gc_root_objects'),
		kv('unreachable', num(info.unreachable_objects) + ' objects, ' + human(info.unreachable_bytes) +
			(info.unreachable_kept ? ' (kept: they count as holders)' : ' (they hold nothing: retained sizes are of what the GC roots reach)'), 'unreachable'),
		kv('weakly reachable', num(info.weakly_reachable_objects) + ' objects, ' + human(info.weakly_reachable_bytes), 'weak'),
		info.object_header !== undefined ? kv('layout', (info.compressed_oops ? 'compressed oops' : 'full references') +
			', object header ' + info.object_header + ' B, array header ' + info.array_header + ' B, alignment ' + info.alignment +
			' (' + (info.layout_detected ? 'from ' + info.layout_source : 'assumed') + ')', 'layout') : null,
		info.timestamp_ms ? kv('taken', utc(info.timestamp_ms), 'taken') : null)),
	el('h3', {}, 'GC roots by kind'),
	el('table', { id: 'roots-table' }, el('thead', {}, el('tr', {}, el('th', {}, 'kind'), el('th', { className: 'n' }, 'records'), el('th', { className: 'n' }, 'objects'))),
		el('tbody', {}, ...info.rows.map(r => el('tr', {}, el('td', {}, r.root_kind), ncell(r.records, 'records'), ncell(r.objects, 'objects'))))));

	// one card per accumulation point: the suspects that share it, then
	// the point and its path once (a suspect without a point: its own)
	const sus = el('div', { id: 'suspects-list' });
	if (!D.suspects.length)
		sus.appendChild(el('p', { className: 'muted' }, 'No object retains 20% of the heap or more, nor the instances of a class 10%.'));
	const cards = [];
	D.suspects.forEach((s, i) => {
		const first = s.same_point_as !== undefined ? D.suspects[s.same_point_as] : s;
		let card = cards.find(c => c.first === first);
		if (!card)
			cards.push(card = { first: first, members: [] });
		card.members.push(i);
	});
	for (const c of cards) {
		const box = el('div', { className: 'card', 'data-point': c.first.point ? c.first.point.id : '' });
		for (const i of c.members) {
			const s = D.suspects[i];
			box.appendChild(el('div', { className: 'suspect', 'data-retained': s.retained },
				el('h3', {}, 'Suspect ' + (i + 1) + ': ', wrappable(s.name)),
				el('div', {}, 'retains ', el('strong', { className: 'retained' }, num(s.retained)), ' bytes (' + human(s.retained) + ', ' +
					pct(s.retained, heapBytes) + ' of the heap); ' + num(s.objects) + (s.point ? ' objects below its accumulation point' : ' objects'))));
		}
		const p = c.first.point;
		if (p) {
			const whose = c.members.length > 1 ? 'the accumulation point of suspects ' +
				c.members.slice(0, -1).map(i => i + 1).join(', ') + ' and ' + (c.members[c.members.length - 1] + 1) + ': '
				: 'accumulation point: ';
			box.appendChild(el('div', { className: 'point' }, whose, wrappable(p.class + ' @' + p.id), ', retaining ' + human(p.retained)));
			if (c.first.path && c.first.path.rows.length)
				box.appendChild(pathTable(c.first.path));
			else
				box.appendChild(el('div', { className: 'muted' }, 'no path from a GC root (held only by weak references or unreachable)'));
		}
		sus.appendChild(box);
	}
	add('suspects', 'Leak suspects', sus);

	const tree = buildTree(D.tree, D.expr ? 'the set' : 'all objects');
	const cutNote = el('div', { className: 'more' }, 'The dominator tree below ' + num(D.tree.top_level) + ' top-level objects; ' + num(D.tree.kept) +
		' objects shown, no deeper than ' + D.tree.depth + ' levels, none retaining under ' + human(D.tree.min_bytes) +
		'; the rest of each level is one "elided" entry with their totals.');
	add('biggest', 'Biggest objects', treeTable(tree, 'biggest-tree'), cutNote);
	let t1 = performance.now();
	add('treemap', 'Treemap', treemap(tree, 'treemap'));
	timings.treemap_ms = performance.now() - t1;
	t1 = performance.now();
	add('sunburst', 'Sunburst', sunburst(tree, 'sunburst'));
	timings.sunburst_ms = performance.now() - t1;
	add('classes', 'Classes', histogram(D.classes, 'classes-table'));
	if (D.unreachable.rows.length)
		add('unreachable', 'Unreachable objects', histogram(D.unreachable, 'unreachable-table'));
	const insp = el('div', { id: 'inspections-list' });
	if (!D.inspections.length) // each reads what one runtime has: none of them this heap's
		insp.appendChild(el('p', { className: 'muted insp-none' },
			'None of the report\u2019s inspections applies to this heap; heapwalk inspect --list says which do.'));
	for (const r of D.inspections) {
		insp.appendChild(el('h3', {}, r.category + ': ' + r.inspection + ' \u2014 ' + r.title));
		if (r.note)
			insp.appendChild(el('p', { className: 'muted insp-note' }, 'not here: ' + r.note));
		if (r.rows.length)
			insp.appendChild(groupsTable(r));
		else
			insp.appendChild(el('p', { className: 'muted' }, 'nothing found'));
		if (r.groups > r.rows.length)
			insp.appendChild(el('div', { className: 'more' }, 'the first ' + r.rows.length + ' of ' + num(r.groups) + ' groups'));
	}
	add('inspections', 'Inspections', insp);
	if (D.baseline) {
		const B = D.baseline;
		const kids = [el('p', { id: 'baseline-summary' }, B.summary), el('p', { className: 'muted' }, B.source)];
		if (B.new_classes) {
			kids.push(el('h3', {}, 'New objects by class'));
			kids.push(histogram(B.new_classes, 'new-classes-table'));
		}
		if (B.diff) {
			kids.push(el('h3', {}, 'Class deltas'));
			const rows = B.diff.rows.slice(0, 200);
			const keys = rows.length ? Object.keys(rows[0]).filter(k => k !== 'class') : [];
			kids.push(el('table', { id: 'diff-table' }, el('thead', {}, el('tr', {}, el('th', {}, 'class'), ...keys.map(k => el('th', { className: 'n' }, k)))),
				el('tbody', {}, ...rows.map(r => el('tr', {}, el('td', { className: 'label' }, wrappable(r.class)), ...keys.map(k => fcell(r[k], k)))))));
		}
		kids.push(el('h3', {}, 'New objects in the dominator tree'));
		kids.push(treeTable(buildTree(B.tree, 'new objects'), 'new-tree'));
		add('baseline', 'What is new', ...kids);
	}
	if (D.leaks) {
		// leaks BASE TARGET FINAL: each cluster's example path from its GC
		// root, then its leaked object and the step that selects them all
		const L = D.leaks;
		const kids = [el('p', { id: 'leaks-summary' }, num(L.leaked_objects) + ' leaked objects (' + human(L.leaked_bytes) +
			'), made by the action (' + num(L.made_by_action) + ' made, ' + num(L.freed_since) + ' freed since), in ' +
			num(L.clusters) + ' clusters retaining ' + human(L.leaked_retained)),
			el('p', { className: 'muted' }, 'identity: ' + L.identity + '; base ' + L.base + ', target ' + L.target + ', final ' + L.final)];
		const byCluster = new Map();
		for (const r of L.rows) {
			if (!byCluster.has(r.cluster))
				byCluster.set(r.cluster, []);
			byCluster.get(r.cluster).push(r);
		}
		const table = el('table', { id: 'leaks-table' }, el('thead', {}, el('tr', {}, el('th', { className: 'n' }, 'cluster'),
			el('th', { className: 'n' }, 'count'), el('th', { className: 'n' }, 'leaked'), el('th', { className: 'n' }, 'retained'),
			el('th', {}, 'path from the GC root'))));
		const body = el('tbody', {});
		for (const [k, rows] of byCluster) {
			const head = rows[0], last = rows[rows.length - 1];
			const path = el('ol', { className: 'leak-path' });
			for (const r of rows)
				path.appendChild(el('li', {}, (r.root ? r.root + ': ' : '') + r.object + ' ', wrappable(r.class),
					r.via !== null ? ' .' + r.via + (r.times > 1 ? ' \u00d7' + num(r.times) : '') : ''));
			body.appendChild(el('tr', { 'data-cluster': String(k) }, ncell(k, 'cluster'), ncell(head.count, 'count'),
				ncell(head.leaked_objects, 'leaked'), bcell(head.retained, 'retained'),
				el('td', { className: 'label' }, path, el('div', { className: 'muted leak-select' }, wrappable(last.select)))));
		}
		table.appendChild(body);
		kids.push(table);
		if (L.shown)
			kids.push(el('div', { className: 'more' }, L.shown));
		add('leaks', 'Leaks', ...kids);
	}
	for (const [id, title] of sections)
		nav.appendChild(el('a', { href: '#' + id }, title));
	timings.total_ms = performance.now() - t0;
	document.body.dataset.ready = '1';
})();
